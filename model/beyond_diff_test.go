package model

import (
	"bytes"
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

// Two ways to the same verdict: on a fault-free history, an anomaly the
// hold-based checker calls beyond every allowance is one the
// linearizability checker, which knows nothing of holds, finds too.
func TestBeyondImpliesNotLinearizable(t *testing.T) {
	diffChecks(t, 500)
	beyond := 0
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 80, maxLocks: 2, perturb: true})
		r := CheckBeyond(h, opts)
		if r.Verdict != Invalid {
			return
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
