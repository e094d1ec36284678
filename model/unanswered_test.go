package model

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// TestUnansweredCall: a release, or a TryLock, that ended info is judged
// against what the run recorded could hold it up: its own bound from its
// call (a TryLock's wait and a quarter, the client's ReplyTimeout, the
// slack) and, past each fault window on its process that met it, the
// client's reconnection and that bound again. One held longer is a hang.
func TestUnansweredCall(t *testing.T) {
	ms := int64(time.Millisecond)
	opts := Options{ReplyTimeout: time.Second} // own bound 1.25 s; no wire: reconnect 1 s
	restart := Fault{Name: "restart", Start: 50 * ms, End: 500 * ms}
	tryInfo := func(call, ret, wait int64) Op {
		o := try(1, "L", call, ret, Info)
		o.Wait = wait
		return o
	}
	cancelled := rel(1, "L", 100*ms, 5100*ms, Info)
	cancelled.Cancelled = true
	driverDied := rel(1, "L", 100*ms, 5100*ms, Info)
	driverDied.DriverFailed, driverDied.Error = true, "driver failed: go-hang-6: unlock by p1 #6: no reply within 2s"
	for _, tc := range []struct {
		name   string
		op     Op
		faults []Fault
		want   Verdict
	}{
		{"a release that hangs after the fault healed", rel(1, "L", 100*ms, 5100*ms, Info), []Fault{restart}, Invalid},
		{"a release that ends within the fault's allowance", rel(1, "L", 100*ms, 2700*ms, Info), []Fault{restart}, Valid},
		{"no fault: within its own bound", rel(1, "L", 100*ms, 1300*ms, Info), nil, Valid},
		{"no fault: past its own bound", rel(1, "L", 100*ms, 1400*ms, Info), nil, Invalid},
		{"a fault of another process excuses nothing", rel(1, "L", 100*ms, 5100*ms, Info), []Fault{{Name: "client-stall", Start: 50 * ms, End: 4 * int64(time.Second), Procs: []int{2}}}, Invalid},
		{"a prompt fault (an interrupt) holds nothing up", rel(1, "L", 100*ms, 5100*ms, Info), []Fault{{Name: "client-interrupt", Start: 50 * ms, End: 4 * int64(time.Second)}}, Invalid},
		{"a fault that lasts the whole call", rel(1, "L", 100*ms, 5100*ms, Info), []Fault{{Name: "client-stall", Start: 50 * ms, End: 5 * int64(time.Second)}}, Valid},
		{"an answered release is not judged", rel(1, "L", 100*ms, 5100*ms, OK), nil, Valid},
		{"a cancelled call is not judged", cancelled, nil, Valid},
		{"a call its driver process failed is not the library's hang", driverDied, nil, Valid},
		{"a blocking acquire is not judged", acq(1, "L", 100*ms, 5100*ms, Info), nil, Valid},
		{"a TryLock's wait is part of its bound", tryInfo(100*ms, 3300*ms, 2000*ms), nil, Valid},
		{"a TryLock past its wait and bound", tryInfo(100*ms, 4000*ms, 2000*ms), nil, Invalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hist(acq(1, "L", 0, ms, OK), tc.op) // the process's first call is another
			h.Faults = tc.faults
			r := CheckTiming(h, opts)
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\n%s", r.Verdict, tc.want, r)
			}
			if tc.want == Invalid {
				ex := r.Examples[0]
				if ex.Shape != ShapeHung || ex.Class != ClassContract || !strings.Contains(ex.Summary, "got no answer") {
					t.Errorf("example %+v, want a hang of class contract", ex)
				}
			}
			// The fault-allowance checker judges the same hang beyond the fault.
			b := CheckBeyond(h, opts)
			if beyond := len(hungProcs(b)) > 0; beyond != (tc.want == Invalid) || (beyond && !b.Examples[0].Beyond) {
				t.Errorf("fault-allowance: %s with %d hung calls, want one beyond the fault exactly when the contract is invalid\n%s", b.Verdict, len(hungProcs(b)), b)
			}
		})
	}
}

// TestUnansweredFirstCall: a process's first call pays its client's
// start-up and is not judged, by this rule as by the TryLock one.
func TestUnansweredFirstCall(t *testing.T) {
	ms := int64(time.Millisecond)
	h := hist(rel(1, "L", 100*ms, 5100*ms, Info))
	if r := CheckTiming(h, Options{ReplyTimeout: time.Second}); r.Verdict != Valid {
		t.Fatalf("a first call was judged:\n%s", r)
	}
}

// TestUnansweredFaultsOnlyExcuse is a metamorphic check of the hang rule
// on random histories: a fault window added to a history can only let its
// calls end later (answerBy never decreases), so it never makes a valid
// history's calls hang, and a history's hangs with the window are a subset
// of its hangs without it.
func TestUnansweredFaultsOnlyExcuse(t *testing.T) {
	ms := int64(time.Millisecond)
	rng := rand.New(rand.NewPCG(2026, 1130))
	names := []string{"restart", "client-stall", "partition", "client-interrupt", "latency"}
	randFault := func() Fault {
		start := rng.Int64N(4000) * ms
		f := Fault{Name: names[rng.IntN(len(names))], Start: start, End: start + rng.Int64N(2000)*ms}
		if rng.IntN(3) == 0 {
			f.Procs = []int{1 + rng.IntN(3)}
		}
		return f
	}
	for i := range 3000 {
		h := &History{}
		for p := 1; p <= 3; p++ {
			h.Ops = append(h.Ops, acq(p, "L", 0, ms, OK)) // each process's first call
			call := rng.Int64N(3000)*ms + 2*ms
			o := rel(p, "L", call, call+rng.Int64N(5000)*ms, Info)
			if rng.IntN(2) == 0 {
				o = try(p, "L", call, o.Return, Info)
				o.Wait = rng.Int64N(1500) * ms
			}
			h.Ops = append(h.Ops, o)
		}
		for range rng.IntN(3) {
			h.Faults = append(h.Faults, randFault())
		}
		opts := Options{ReplyTimeout: time.Duration(rng.Int64N(2000)) * time.Millisecond}
		without := hungProcs(CheckTiming(h, opts))
		h.Faults = append(h.Faults, randFault())
		with := hungProcs(CheckTiming(h, opts))
		for p := range with {
			if !without[p] {
				t.Fatalf("case %d: a fault window added made p%d's call hang:\n%+v", i, p, h)
			}
		}
	}
}

// hungProcs are the processes whose call r reports hung.
func hungProcs(r Result) map[int]bool {
	out := map[int]bool{}
	for _, ex := range r.Examples {
		if ex.Shape == ShapeHung {
			out[ex.Ops[0].Process] = true
		}
	}
	return out
}
