package model

import (
	"strings"
	"testing"
)

// explain returns the linearizability checker's first example on h.
func explain(t *testing.T, h *History, opts Options) Example {
	t.Helper()
	res := CheckLinearizability(h, opts)
	if res.Verdict != Invalid || len(res.Examples) == 0 {
		t.Fatalf("verdict %s, %d examples, want invalid: %s", res.Verdict, len(res.Examples), res.Explanation)
	}
	return res.Examples[0]
}

func hasOp(ex Example, want Op) bool {
	for _, o := range ex.Ops {
		if o == want {
			return true
		}
	}
	return false
}

// The failed TryLock is what makes this history contradictory: without it
// p3 could be granted and release before p1's grant. The explanation must
// name it, and must not name p4's failed TryLock, which p3's hold explains
// and the contradiction does not need (though it overlaps the conflict).
//
//	p1 |------------acq ok-------------------|  |rel ok|
//	p2     |try fail|
//	p3                |acq ok|  |rel ok|
//	p4                  |try fail|
//	   0   10      20 25 26  29 30 31  32       100  110  120
func TestExplanationNamesTheNeededFailedTryLock(t *testing.T) {
	needed := try(2, "L", 10, 20, Fail)
	noise := try(4, "L", 26, 29, Fail)
	h := hist(
		acq(1, "L", 0, 100, OK), rel(1, "L", 110, 120, OK),
		needed,
		acq(3, "L", 25, 30, OK), rel(3, "L", 31, 32, OK),
		noise,
	)
	ex := explain(t, h, Options{})
	if !hasOp(ex, needed) {
		t.Errorf("the explanation leaves out the failed TryLock the contradiction needs:\n%s", ex)
	}
	if hasOp(ex, noise) {
		t.Errorf("the explanation names a failed TryLock the contradiction does not need:\n%s", ex)
	}
}

// A fault window that ended before the holder's acquire was called cannot
// have stopped its watchdog: it must not be blamed, and a window before the
// whole conflict must not even be listed.
//
//	crash   [=========]
//	pause [=]
//	p2          |-----------acq ok lease 1000-----------|
//	p1                     |acq ok watchdog|                        |rel ok|
//	      0  5  10       50 60           70            130         200  210
func TestExplanationBlamesOnlyFaultsDuringTheHold(t *testing.T) {
	crash := Fault{Name: "client-crash", Target: "w9", Start: 0, End: 50}
	early := Fault{Name: "redis-pause", Start: 0, End: 5}
	h := hist(
		withLease(acq(2, "L", 10, 130, OK), 1000),
		withLease(acq(1, "L", 60, 70, OK), 0),
		rel(1, "L", 200, 210, OK),
	)
	h.Faults = []Fault{early, crash}
	ex := explain(t, h, Options{WatchdogLease: 30})
	if strings.Contains(ex.Cause, "stopped being renewed") || ex.LeaseCouldExpire {
		t.Errorf("the explanation blames a window that ended before the acquire was called:\n%s", ex)
	}
	if !strings.Contains(ex.Cause, "implementation bug") {
		t.Errorf("no order of the grants lets a hold end, want an implementation bug:\n%s", ex)
	}
	for _, f := range ex.Faults {
		if f.Name == early.Name && f.Start == early.Start && f.End == early.End {
			t.Errorf("the explanation lists a window that ended before the conflict:\n%s", ex)
		}
	}
}
