package stats

import (
	"math"
	"math/big"
	"testing"
)

// TestFisherOneSidedKnown checks tables whose P values are known: Fisher's
// lady tasting tea (3 of 4 right), and the counts lockcheck's replays give.
func TestFisherOneSidedKnown(t *testing.T) {
	for _, c := range []struct {
		aHit, aMiss, bHit, bMiss int
		want                     float64
	}{
		{3, 1, 1, 3, 17.0 / 70},       // the tea: R fisher.test(alternative="greater") 0.2429
		{4, 0, 0, 4, 1.0 / 70},        // all four right
		{5, 0, 0, 5, 1.0 / 252},       // 5 of 5 replays against 0 of 5
		{3, 0, 0, 3, 1.0 / 20},        // 3 of 3 against 0 of 3: not below 0.05
		{6, 4, 0, 5, 210.0 / 5005},    // C(10,6)/C(15,6)
		{1, 9, 0, 5, 10.0 / 15},       // one hit in 10 against none in 5
		{0, 5, 0, 5, 1},               // no hit at all
		{0, 5, 5, 0, 1},               // a has no hit
		{1, 4, 5, 0, 1},               // a has fewer: every table as extreme
		{2, 3, 1, 4, 0.5},             // (C(5,2)C(5,1) + C(5,3)) / C(10,3) = 60/120
		{10, 2, 3, 15, 0.00046518094}, // sum over 10..12 of C(12,x)C(18,13-x) / C(30,13)
		{0, 0, 3, 2, 1},               // an empty sample
	} {
		got := FisherOneSided(c.aHit, c.aMiss, c.bHit, c.bMiss)
		if math.Abs(got-c.want) > 1e-7*max(1, c.want) {
			t.Errorf("FisherOneSided(%d, %d, %d, %d) = %.10f, want %.10f", c.aHit, c.aMiss, c.bHit, c.bMiss, got, c.want)
		}
	}
}

// TestFisherOneSidedExact compares every table of up to 12 runs a side
// with the sum of exact hypergeometric terms (big rationals).
func TestFisherOneSidedExact(t *testing.T) {
	for nA := 0; nA <= 12; nA++ {
		for nB := 0; nB <= 12; nB++ {
			for aHit := 0; aHit <= nA; aHit++ {
				for bHit := 0; bHit <= nB; bHit++ {
					got := FisherOneSided(aHit, nA-aHit, bHit, nB-bHit)
					want := exactTail(nA, nB, aHit, aHit+bHit)
					if math.Abs(got-want) > 1e-9 {
						t.Fatalf("FisherOneSided(%d, %d, %d, %d) = %.12f, want %.12f", aHit, nA-aHit, bHit, nB-bHit, got, want)
					}
				}
			}
		}
	}
}

// exactTail is P(X >= aHit) for X hypergeometric: hits drawn among nA+nB,
// X of them in a; computed with exact integers.
func exactTail(nA, nB, aHit, hits int) float64 {
	num := new(big.Int)
	for x := aHit; x <= hits && x <= nA; x++ {
		if hits-x > nB {
			continue
		}
		num.Add(num, new(big.Int).Mul(new(big.Int).Binomial(int64(nA), int64(x)), new(big.Int).Binomial(int64(nB), int64(hits-x))))
	}
	f, _ := new(big.Rat).SetFrac(num, new(big.Int).Binomial(int64(nA+nB), int64(hits))).Float64()
	return f
}

func TestFisherOneSidedNegative(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("FisherOneSided(-1, 0, 0, 0) did not panic")
		}
	}()
	FisherOneSided(-1, 0, 0, 0)
}
