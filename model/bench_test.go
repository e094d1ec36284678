package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks of the linearizability checker on simulated histories over 16
// locks: "clean" has no info ops, "faulty" has >= 2% info ops (as a
// partition produces). `go test -bench 100k ./model/` selects the 100k ones;
// cpu-s/op, the process's CPU time, is the figure to compare on a busy
// machine.

func benchHistory(b *testing.B, n int, infoRate float64) *History {
	b.Helper()
	h, _ := simulate(rand.New(rand.NewPCG(uint64(n), uint64(infoRate*1000))), simConfig{
		locks: 16, procs: 8, ops: n, infoRate: infoRate,
	})
	return h
}

func benchCheck(b *testing.B, n int, infoRate float64) {
	h := benchHistory(b, n, infoRate)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		res := CheckLinearizability(h, Options{Timeout: 60 * time.Second})
		if b.N == 1 && testing.Verbose() {
			b.Log(res.Explanation)
		}
		if res.Verdict != Valid {
			b.Fatalf("verdict %s: %s", res.Verdict, res.Explanation)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(100*infoShare(h), "info%")
	b.ReportMetric(float64(len(h.Ops)), "ops")
}

func BenchmarkCheck10kClean(b *testing.B)   { benchCheck(b, 10_000, 0) }
func BenchmarkCheck10kFaulty(b *testing.B)  { benchCheck(b, 10_000, 0.12) }
func BenchmarkCheck100kClean(b *testing.B)  { benchCheck(b, 100_000, 0) }
func BenchmarkCheck100kFaulty(b *testing.B) { benchCheck(b, 100_000, 0.12) }

// The 100k histories above with one injected double grant must be decided
// Invalid (explanation included): each pairs with the valid history it was
// made from, so their ratio is what the broken case costs on top (target:
// within 2×).
func BenchmarkCheck100kCleanDoubleGrant(b *testing.B)  { benchDoubleGrant(b, 100_000, 0) }
func BenchmarkCheck100kFaultyDoubleGrant(b *testing.B) { benchDoubleGrant(b, 100_000, 0.12) }

func benchDoubleGrant(b *testing.B, n int, infoRate float64) {
	r := rand.New(rand.NewPCG(uint64(n), uint64(infoRate*1000))) // benchHistory's
	h, ws := simulate(r, simConfig{locks: 16, procs: 8, ops: n, infoRate: infoRate})
	bad, ok := injectDoubleGrant(r, h, ws)
	if !ok {
		b.Fatal("nothing to inject into")
	}
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		if res := CheckLinearizability(bad, Options{Timeout: 60 * time.Second}); res.Verdict != Invalid {
			b.Fatalf("verdict %s: %s", res.Verdict, res.Explanation)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(100*infoShare(bad), "info%")
	b.ReportMetric(float64(len(bad.Ops)), "ops")
}
