// Package stats holds the statistics lockcheck's reports quote.
package stats

import (
	"fmt"
	"math"
)

// FisherOneSided is the one-sided P value of Fisher's exact test on the
// 2×2 table of hits and misses of two samples a and b: the probability,
// with the table's margins fixed (the hypergeometric distribution), of a
// table at least as extreme in favour of a having more hits, that is of a
// having aHit or more hits. It is small when a's hits are too many to be
// b's rate by chance ("fails on the buggy release, not on the fixed").
//
// Guarantees: the result is in [0, 1]; 1 when a has no hit or there is
// nothing to compare (an empty sample or no hit at all). It panics on a
// negative count, which no count of runs can be.
func FisherOneSided(aHit, aMiss, bHit, bMiss int) float64 {
	if aHit < 0 || aMiss < 0 || bHit < 0 || bMiss < 0 {
		panic(fmt.Sprintf("stats: FisherOneSided(%d, %d, %d, %d): negative count", aHit, aMiss, bHit, bMiss))
	}
	nA, nB, hits := aHit+aMiss, bHit+bMiss, aHit+bHit
	p := 0.0
	for x := max(aHit, hits-nB); x <= min(hits, nA); x++ { // the tables that can be
		p += math.Exp(logChoose(nA, x) + logChoose(nB, hits-x) - logChoose(nA+nB, hits))
	}
	return min(p, 1)
}

// logChoose is ln C(n, k), for 0 <= k <= n.
func logChoose(n, k int) float64 {
	return logFactorial(n) - logFactorial(k) - logFactorial(n-k)
}

// logFactorial is ln n!.
func logFactorial(n int) float64 {
	v, _ := math.Lgamma(float64(n) + 1)
	return v
}
