package model

import (
	"fmt"
	"testing"
	"time"
)

// brokenHistory synthesizes the history of a lock that grants every request
// (like mutant-check-then-set under contention): n ops in rounds of six on
// 8 processes and one lock, each round a double grant whose two critical
// sections overlap and lose an update, with a fault window every 100
// rounds. Every round is a violation for every checker, so the explainers
// run on all of them.
func brokenHistory(n int) *History {
	const lease = int64(time.Second)
	h := &History{Header: Header{Ends: true}}
	for i := 0; len(h.Ops)+6 <= n; i++ {
		base := int64(i) * 1000
		a := 2 * (i % 4)
		b := a + 1
		v := int64(i)
		h.Ops = append(h.Ops,
			withLease(acq(a, "L", base, base+100, OK), lease),
			withLease(acq(b, "L", base+50, base+150, OK), lease),
			sec(a, "L", base+200, base+400, v, v+1, OK),
			sec(b, "L", base+250, base+450, v, v+1, OK),
			rel(a, "L", base+500, base+600, OK),
			rel(b, "L", base+550, base+650, OK),
		)
		if i%100 == 0 {
			h.Faults = append(h.Faults, Fault{Name: "pause", Target: "redis", Start: base + 20, End: base + 300})
		}
	}
	h.End = &End{At: int64(len(h.Ops)/6+1) * 1000}
	return h
}

// BenchmarkCheckBroken checks broken-lock histories of growing size: the
// time per history op (ns/histop) stays flat when checking is linear.
func BenchmarkCheckBroken(b *testing.B) {
	for _, n := range []int{10_000, 20_000, 40_000, 80_000} {
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			h := brokenHistory(n)
			b.ReportAllocs()
			b.ResetTimer()
			var elapsed time.Duration
			for b.Loop() {
				start := time.Now()
				rep := Check(h, Options{Timeout: 10 * time.Minute})
				elapsed += time.Since(start)
				if rep.Verdict != Invalid {
					b.Fatalf("verdict %s:\n%v", rep.Verdict, rep)
				}
			}
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(b.N)/float64(len(h.Ops)), "ns/histop")
		})
	}
}
