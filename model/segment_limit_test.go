package model

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// A segment over Options.MaxSegmentOps is not given to porcupine: the
// verdict is Unknown and says why, never Valid.
func TestSegmentOverLimitIsUndecided(t *testing.T) {
	// p1 waits across p0's two holds: no quiet point, one segment of 5 ops.
	h := hist(acq(0, "L", 0, 5, OK), acq(1, "L", 1, 40, OK), rel(0, "L", 10, 15, OK), rel(1, "L", 45, 50, OK), try(2, "L", 20, 30, Fail))
	if res := CheckLinearizability(h, Options{}); res.Verdict != Valid {
		t.Fatalf("within the limit: %s", res.Explanation)
	}
	res := CheckLinearizability(h, Options{MaxSegmentOps: 3})
	if res.Verdict != Unknown || !strings.Contains(res.Explanation, "more than 3 ops") {
		t.Fatalf("over the limit: %s %s", res.Verdict, res.Explanation)
	}
}

// A contended lock's history may have no quiet point where the state is
// known, and then it is one segment; porcupine's visited-configuration
// cache would take ~n²/8 bytes for it. Checking a long contended history
// with a segment bound below its size must allocate in proportion to its
// ops, whether it is cut (this one is, where a live holder holds: heldCut)
// or left whole and undecided over the bound.
func TestCheckOneContendedLockAllocatesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 60k ops")
	}
	h, _ := simulate(rand.New(rand.NewPCG(60_000, 1)), simConfig{locks: 1, procs: 8, ops: 60_000, infoRate: 0.02})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res := CheckLinearizability(h, Options{MaxSegmentOps: 1 << 15})
	runtime.ReadMemStats(&after)
	if res.Verdict == Invalid {
		t.Fatalf("a simulated valid history: %s", res.Explanation)
	}
	perOp := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(h.Ops))
	if perOp > 1024 {
		t.Fatalf("checking allocated %.0f bytes an op (%s), want <= 1024", perOp, res.Explanation)
	}
}
