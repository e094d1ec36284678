package model

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks of the whole check (Check) on the fault-heavy 100k history of
// BenchmarkCheck100kFaultyDoubleGrant broken in other ways than one double
// grant: a broken lock's history must check about as fast as a clean one,
// whatever broke, since only the first contradiction of a lock is
// explained, on its window. cpu-s/op (the process's CPU time) is the
// figure to compare on a busy machine:
//
//	go test -run '^$' -bench 'CheckShapes' ./model/
func BenchmarkCheckShapes100k(b *testing.B) {
	for _, c := range []struct {
		name   string
		break_ func(*rand.Rand, *History, []window) (*History, bool)
		want   Verdict
	}{
		{"valid", func(_ *rand.Rand, h *History, _ []window) (*History, bool) { return h, true }, Valid},
		{"double-grant", injectDoubleGrant, Invalid},
		{"stale-unlock-ok", injectStaleUnlock, Invalid},
		{"lost-hold", injectLostHold, Invalid},
		{"wrong-token", injectWrongToken, Invalid},
		{"20-double-grants", func(r *rand.Rand, h *History, ws []window) (*History, bool) {
			ok := true
			for i := 0; i < 20 && ok; i++ {
				h, ok = injectDoubleGrant(r, h, ws)
			}
			return h, ok
		}, Invalid},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(7, 7))
			h, ws := simulate(r, simConfig{locks: 16, procs: 8, ops: 100_000, infoRate: 0.12})
			bad, ok := c.break_(r, h, ws)
			if !ok {
				b.Fatal("nothing to break")
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				if rep := Check(bad, Options{Timeout: time.Minute}); rep.Verdict != c.want {
					b.Fatalf("verdict %s, want %s:\n%s", rep.Verdict, c.want, rep)
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// injectStaleUnlock adds, inside a window where a live process held the
// lock, an unlock answered ok by a process that never held it.
func injectStaleUnlock(r *rand.Rand, h *History, ws []window) (*History, bool) {
	return injectInWindow(r, h, ws, func(p int, lock string, c, ret int64) Op {
		return Op{Process: p, Lock: lock, Kind: Release, Call: c, Return: ret, Outcome: OK}
	})
}

// injectWrongToken sets the token of a grant to 1, below its
// predecessors': the fencing checker's violation (linearizability does not
// see tokens).
func injectWrongToken(r *rand.Rand, h *History, _ []window) (*History, bool) {
	var cands []int
	for i, o := range h.Ops {
		if o.Kind == Acquire && o.Outcome == OK && o.Blocking && o.Token > 10 { // a grant, not a reentry
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return h, false
	}
	out := *h
	out.Ops = append([]Op(nil), h.Ops...)
	out.Ops[cands[r.IntN(len(cands))]].Token = 1
	return &out, true
}

// injectLostHold answers a holder's final unlock "not owner": the lock
// lost the hold while its holder held it, and it goes on believing it
// does.
func injectLostHold(r *rand.Rand, h *History, _ []window) (*History, bool) {
	var cands []int
	for i, o := range h.Ops {
		if o.Kind == Release && o.Outcome == OK {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return h, false
	}
	out := *h
	out.Ops = append([]Op(nil), h.Ops...)
	o := &out.Ops[cands[r.IntN(len(cands))]]
	o.Outcome, o.Error = Fail, "not owner"
	return &out, true
}
