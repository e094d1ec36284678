package model

import (
	"bytes"
	"sort"
	"testing"

	"pgregory.net/rapid"
)

// A correct lock's fault-free histories have no anomaly at all, so none
// beyond a fault.
func TestBeyondValidOnGroundTruth(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2})
		if r := CheckBeyond(h, opts); r.Verdict != Valid {
			t.Fatalf("a correct lock's history judged beyond its faults:\n%s\n%s", r, dumpHistory(h))
		}
	})
}

// Two ways to the same verdict: on a fault-free history, a safety anomaly
// the hold-based checker calls beyond every allowance is one the
// linearizability checker, which knows nothing of holds, finds too.
func TestBeyondImpliesNotLinearizable(t *testing.T) {
	diffChecks(t, 500)
	beyond := 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2, perturb: true})
		if !sequential(h) || reentryInExpire(h) {
			return // a process runs one op at a time (the hold checker's premise); see reentryInExpire
		}
		r := CheckBeyond(h, opts)
		safety := false
		for _, ex := range r.Examples {
			safety = safety || ex.Class == ClassSafety
		}
		if !safety {
			return // the lease bound (ClassLiveness) is no linearizability matter
		}
		beyond++
		if lin := CheckLinearizability(h, opts); lin.Verdict != Invalid {
			t.Fatalf("beyond the faults but linearizable:\n%s\n%s\n%s", r, lin, dumpHistory(h))
		}
	})
	t.Logf("%d histories beyond their faults, each also not linearizable", beyond)
}

// FuzzBeyond feeds arbitrary well-formed histories to the checker: it must
// not panic, and it must agree with itself on a second run.
func FuzzBeyond(f *testing.F) {
	f.Add([]byte(`{"p":0,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil || h.Validate() != nil {
			return
		}
		a, b := CheckBeyond(h, Options{WatchdogLease: 100}), CheckBeyond(h, Options{WatchdogLease: 100})
		if a.Verdict != b.Verdict || a.Count != b.Count {
			t.Fatalf("two runs disagree: %s / %s", a, b)
		}
	})
}

// sequential reports whether every process's ops (but Expire, the server's
// act) are one at a time: a perturbation that moves an op into its
// neighbour's interval breaks that.
func sequential(h *History) bool {
	last := map[int]int64{}
	ops := append([]Op(nil), h.Ops...)
	sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	for _, o := range ops {
		if o.Kind == Expire {
			continue
		}
		if r, ok := last[o.Process]; ok && o.Call <= r {
			return false
		}
		last[o.Process] = o.Return
	}
	return true
}

// reentryInExpire reports whether an ok acquire meets an Expire window of
// its own process: whether it re-entered the hold the Expire dropped (its
// count gone with it) or took a fresh one is undecided, which the
// linearizability checker leaves open and the hold checker, counting
// holds, settles as a fresh one; a perturbation that drops a release then
// makes the two disagree on histories a real run never records.
func reentryInExpire(h *History) bool {
	for _, x := range h.Ops {
		if x.Kind != Expire {
			continue
		}
		for _, o := range h.Ops {
			if o.Process == x.Process && o.Lock == x.Lock && o.Kind == Acquire && o.Outcome == OK && o.Call <= x.Return && o.Return >= x.Call {
				return true
			}
		}
	}
	return false
}
