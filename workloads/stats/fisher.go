// Package stats holds the small statistics lockcheck's judgements need:
// Fisher's exact test of two releases' replay counts.
package stats

import "math"

// FisherOneSided is the one-sided p-value of Fisher's exact test on the
// 2×2 table
//
//	a: aHit aMiss
//	b: bHit bMiss
//
// with the margins fixed: the probability, under the hypothesis that a
// and b hit alike, of a table at least as extreme in favour of a having
// more hits (a's hits ≥ aHit), as R's fisher.test(alternative =
// "greater") gives it. A table with a negative count, or an empty row or
// column, is no evidence: 1.
func FisherOneSided(aHit, aMiss, bHit, bMiss int) float64 {
	if aHit < 0 || aMiss < 0 || bHit < 0 || bMiss < 0 {
		return 1
	}
	nA, hits := aHit+aMiss, aHit+bHit
	n := nA + bHit + bMiss
	var p float64
	for k := aHit; k <= min(hits, nA); k++ {
		p += math.Exp(logChoose(hits, k) + logChoose(n-hits, nA-k) - logChoose(n, nA))
	}
	return min(p, 1)
}

// logChoose is log(n choose k), for 0 ≤ k ≤ n.
func logChoose(n, k int) float64 {
	return lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)
}

func lgamma(n int) float64 {
	v, _ := math.Lgamma(float64(n))
	return v
}
