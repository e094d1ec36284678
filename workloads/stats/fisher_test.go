package stats

import (
	"math"
	"testing"
)

func TestFisherOneSided(t *testing.T) {
	tests := []struct {
		name                     string
		aHit, aMiss, bHit, bMiss int
		want                     float64
	}{
		// Fisher's lady tasting tea, all 8 cups right: 1/70.
		{"tea tasting, all right", 4, 0, 0, 4, 1.0 / 70},
		// R: fisher.test(TeaTasting, alternative = "greater"): 0.2429.
		{"tea tasting, R's example", 3, 1, 1, 3, 0.2428571},
		// R: fisher.test(Convictions, alternative = "less"): 0.0004652,
		// the same table with its rows swapped.
		{"R's convictions", 10, 2, 3, 15, 0.0004651809},
		{"five of five against none", 5, 0, 0, 5, 1.0 / 252},
		{"five of five against one of five", 5, 0, 1, 4, 6.0 / 252},
		{"three of five against none", 3, 2, 0, 5, 1.0 / 12},
		{"the other way round", 0, 5, 5, 0, 1},
		{"no hits at all", 0, 5, 0, 5, 1},
		{"empty", 0, 0, 0, 0, 1},
		{"a negative count", -1, 5, 0, 5, 1},
	}
	for _, tt := range tests {
		got := FisherOneSided(tt.aHit, tt.aMiss, tt.bHit, tt.bMiss)
		if math.Abs(got-tt.want) > 1e-6*max(1, tt.want) {
			t.Errorf("%s: FisherOneSided(%d, %d, %d, %d) = %.10g, want %.10g", tt.name, tt.aHit, tt.aMiss, tt.bHit, tt.bMiss, got, tt.want)
		}
	}
}

// The p-value falls as a's hits rise against b's, and the two sides of a
// table add up to 1 plus the probability of the table itself.
func TestFisherOneSidedMonotone(t *testing.T) {
	for n := 1; n <= 12; n++ {
		prev := 2.0
		for hit := 0; hit <= n; hit++ {
			p := FisherOneSided(hit, n-hit, 1, n-1)
			if p > prev+1e-12 || p < 0 || p > 1 {
				t.Fatalf("n=%d: p(%d hits) = %g after %g", n, hit, p, prev)
			}
			prev = p
			greater, less := p, FisherOneSided(1, n-1, hit, n-hit)
			same := FisherOneSided(hit, n-hit, 1, n-1) - FisherOneSided(hit+1, n-hit-1, 0, n)
			if hit == n {
				same = p
			}
			if math.Abs(greater+less-1-same) > 1e-9 {
				t.Fatalf("n=%d hit=%d: greater %g + less %g != 1 + P(table) %g", n, hit, greater, less, same)
			}
		}
	}
}
