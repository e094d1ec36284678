package model

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The default liveness bound (Options.MaxWait == 0) is DefaultWaitLeases of
// waiting on a free lock outside faults; with testLease = 1000 that is 2000.
func TestLivenessDefaultBound(t *testing.T) {
	// p0 holds [10, 110]; p1 waits from 5 to 5000.
	held := []Op{acq(0, "L", 0, 10, OK), rel(0, "L", 100, 110, OK)}
	tests := []struct {
		name string
		h    *History
		opts Options
		want Verdict
	}{
		{"lost wake-up: waits 4.9 leases on a free lock", hist(append(held, acq(1, "L", 5, 5000, OK))...), Options{}, Invalid},
		{"a waiter that gave up counts too", hist(append(held, acq(1, "L", 5, 5000, Fail))...), Options{}, Invalid},
		{"off", hist(append(held, acq(1, "L", 5, 5000, OK))...), Options{MaxWait: -1}, Valid},
		{"within the bound", hist(append(held, acq(1, "L", 5, 2000, OK))...), Options{}, Valid},
		{"a long wait behind holders is not a lost wake-up", hist(
			acq(0, "L", 0, 10, OK), rel(0, "L", 2000, 2010, OK),
			acq(2, "L", 5, 2020, OK), rel(2, "L", 4000, 4010, OK),
			acq(1, "L", 6, 4100, OK)), Options{}, Valid},
		{"free time inside a fault window does not count", &History{
			Ops:    append(held, acq(1, "L", 5, 5000, OK)),
			Faults: []Fault{{Name: "pause", Start: 200, End: 4900}}}, Options{}, Valid},
		{"a retired acquire may hold one lease past its deadline", hist(append(held,
			withDeadline(acq(2, "L", 100, 200, Info), 300), acq(1, "L", 5, 3000, OK))...), Options{}, Valid},
		{"a hold never released lasts to the end", hist(acq(0, "L", 0, 10, OK), acq(1, "L", 5, 5000, Fail)), Options{}, Valid},
		{"the bound scales with the lease", hist(append(held, withLease(acq(1, "L", 5, 5000, OK), 3000))...), Options{}, Valid},
		{"a set bound counts the whole wait", hist(
			acq(0, "L", 0, 10, OK), rel(0, "L", 2000, 2010, OK),
			acq(1, "L", 6, 2100, OK)), Options{MaxWait: 1000}, Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckLive(tt.h, tt.opts)
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %v", res.Verdict, tt.want, res.Explanation, res.Examples)
			}
			if !strings.Contains(res.Explanation, "bound") {
				t.Fatalf("explanation does not state the bound: %s", res.Explanation)
			}
		})
	}
}

// The explanation says which bound applied, so a valid verdict is never
// mistaken for a checked bound when it was off.
func TestLivenessStatesBound(t *testing.T) {
	h := hist(acq(0, "L", 0, 10, OK), rel(0, "L", 100, 110, OK))
	for _, tt := range []struct {
		opts Options
		want string
	}{
		{Options{}, "2µs (lock L) of free lock per acquire outside faults (2 leases, derived from the run's leases)"},
		{Options{MaxWait: -1}, "no bound on waits (off)"},
		{Options{MaxWait: 5}, "bound: 5ns per acquire outside faults (set)"},
	} {
		if res := CheckLive(h, tt.opts); !strings.Contains(res.Explanation, tt.want) {
			t.Errorf("MaxWait %v: %q does not say %q", tt.opts.MaxWait, res.Explanation, tt.want)
		}
	}
}

func TestUncovered(t *testing.T) {
	covers := []span{{0, 10}, {5, 20}, {30, 40}, {35, 38}, {60, 100}}
	for _, tt := range []struct{ from, to, want int64 }{
		{0, 100, 10 + 20}, {15, 35, 10}, {40, 60, 20}, {100, 150, 50}, {2, 8, 0},
	} {
		if got := uncovered(tt.from, tt.to, covers); got != tt.want {
			t.Errorf("uncovered(%d, %d) = %d, want %d", tt.from, tt.to, got, tt.want)
		}
	}
}

// Two leases that outlast an op can never fire: the bound stays below the
// op timeout, and a lease with no room below it is said to be unbounded.
func TestWaitBoundStaysBelowTheOpTimeout(t *testing.T) {
	const s = int64(time.Second)
	for _, tc := range []struct {
		lease int64
		op    time.Duration
		want  int64
		ok    bool
	}{
		{s, 0, 2 * s, true},
		{s, 5 * time.Second, 2 * s, true},
		{3100 * int64(time.Millisecond), 5 * time.Second, 4050 * int64(time.Millisecond), true},
		{4600 * int64(time.Millisecond), 5 * time.Second, 0, false},
	} {
		got, ok := waitBound(tc.lease, tc.op)
		if got != tc.want || ok != tc.ok {
			t.Errorf("lease %v, op %v: bound %v %v, want %v %v", time.Duration(tc.lease), tc.op, time.Duration(got), ok, time.Duration(tc.want), tc.ok)
		}
	}
	// A blocking acquire that sat out its whole 5 s op on a free lock with
	// a 3.1 s lease around: caught.
	ms := int64(time.Millisecond)
	h := hist(withLease(acq(1, "L", 0, ms, OK), 3100*ms), rel(1, "L", 2*ms, 3*ms, OK), withLease(acq(2, "L", 10*ms, 5010*ms, Fail), 3100*ms))
	if r := CheckLive(h, Options{OpTimeout: 5 * time.Second}); r.Verdict != Invalid {
		t.Fatalf("a waiter that sat out its op on a free lock passed: %s", r)
	}
	if r := CheckLive(h, Options{OpTimeout: 3 * time.Second}); r.Verdict != Valid || !strings.Contains(r.Explanation, "NOT bounded") {
		t.Fatalf("an unbounded lock must say so: %s", r)
	}
}

// A lock whose waiters wake at the TTL they saw may sit out one lease on a
// free lock after a missed message, and no longer.
func TestTTLWakeupsBoundOneStretchByALease(t *testing.T) {
	ms := int64(time.Millisecond)
	waited := func(free int64) *History {
		return hist(
			withLease(acq(1, "L", 0, ms, OK), 1500*ms), rel(1, "L", 100*ms, 101*ms, OK),
			withLease(acq(2, "L", 50*ms, 101*ms+free, OK), 1500*ms), rel(2, "L", 102*ms+free, 103*ms+free, OK),
		)
	}
	opts := Options{FreeWait: 500 * time.Millisecond}
	if r := CheckLive(waited(1400*ms), opts); r.Verdict != Invalid {
		t.Fatalf("prompt bound: a 1.4 s stretch on a free lock passed: %s", r)
	}
	opts.TTLWakeups = true
	if r := CheckLive(waited(1400*ms), opts); r.Verdict != Valid {
		t.Fatalf("TTL wake-ups: a 1.4 s stretch with a 1.5 s lease failed: %s", r)
	}
	if r := CheckLive(waited(2500*ms), opts); r.Verdict != Invalid {
		t.Fatalf("TTL wake-ups: a 2.5 s stretch with a 1.5 s lease passed: %s", r)
	}
}

// A fair lock keeps a free lock for the head of its queue: a waiter queued
// behind an acquire whose process a fault held up waits for it, on a free
// lock, as long as the fault lasts (partition-timeout seed 20786100: the
// fair lock's waiters behind a black-holed client's acquire, 2.7 s). Just
// outside: a waiter queued before the faulted acquire, or one of a lock
// that keeps no queue, waited on a free lock.
func TestFairLockWaitsBehindAFaultedHead(t *testing.T) {
	stall := Fault{Name: "client-stall", Start: 120, End: 3900, Procs: []int{2}}
	held := []Op{withEnq(acq(0, "L", 0, 10, OK), 1), rel(0, "L", 100, 110, OK)}
	head := []Op{withEnq(acq(2, "L", 50, 4000, OK), 50), rel(2, "L", 4100, 4110, OK)}
	tests := []struct {
		name   string
		waiter Op
		fair   bool
		want   Verdict
	}{
		{"queued behind the faulted head", withEnq(acq(1, "L", 60, 4200, OK), 60), true, Valid},
		{"queued before the faulted acquire", withEnq(acq(1, "L", 40, 4200, OK), 40), true, Invalid},
		{"a lock that keeps no queue", acq(1, "L", 60, 4200, OK), false, Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ops := append(append(append([]Op(nil), held...), head...), tt.waiter)
			if !tt.fair {
				for i := range ops {
					ops[i].Enqueued = 0
				}
			}
			res := CheckLive(&History{Ops: ops, Faults: []Fault{stall}}, Options{})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %v", res.Verdict, tt.want, res.Explanation, res.Examples)
			}
		})
	}
}

// A fair lock keeps a dead waiter's place for its claimed queue timeout
// (Redisson's fairLockWaitTimeout): a waiter queued behind an acquire whose
// process a client-crash killed may wait that long on a free lock
// (client-crash, redisson-fair, seed 20786100: waits of 5 s, the op
// timeout, behind crashed waiters), and dead waiters queued one behind
// another time out one after another. Just outside: a shorter claim, no
// claim, a waiter queued before the dead one, a lone dead waiter where two
// were needed.
func TestFairLockWaitsBehindADeadWaiter(t *testing.T) {
	held := []Op{withEnq(acq(0, "L", 0, 10, OK), 1), rel(0, "L", 100, 110, OK)}
	dead := func(p int, enq, crash int64) ([]Op, Fault) {
		return []Op{withEnq(acq(p, "L", enq, crash+5, Info), enq)}, Fault{Name: "client-crash", Start: crash, End: crash + 5, Procs: []int{p}}
	}
	d2, crash2 := dead(2, 50, 200)
	d3, crash3 := dead(3, 55, 300)
	behind := []Op{withEnq(acq(1, "L", 60, 4300, OK), 60), rel(1, "L", 4400, 4410, OK)}
	ahead := []Op{withEnq(acq(1, "L", 40, 4300, OK), 40), rel(1, "L", 4400, 4410, OK)}
	tests := []struct {
		name    string
		ops     [][]Op
		faults  []Fault
		timeout time.Duration
		want    Verdict
	}{
		{"behind the dead waiter, within its claim", [][]Op{held, d2, behind}, []Fault{crash2}, 5000, Valid},
		{"behind the dead waiter, past a shorter claim", [][]Op{held, d2, behind}, []Fault{crash2}, 1000, Invalid},
		{"behind the dead waiter, no claim", [][]Op{held, d2, behind}, []Fault{crash2}, 0, Invalid},
		{"queued before the dead waiter", [][]Op{held, d2, ahead}, []Fault{crash2}, 5000, Invalid},
		{"behind two dead waiters, their timeouts one after another", [][]Op{held, d2, d3, behind}, []Fault{crash2, crash3}, 2000, Valid},
		{"behind one dead waiter of the two", [][]Op{held, d2, behind}, []Fault{crash2}, 2000, Invalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckLive(&History{Ops: slices.Concat(tt.ops...), Faults: tt.faults}, Options{QueueTimeout: tt.timeout})
			if res.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s: %s %v", res.Verdict, tt.want, res.Explanation, res.Examples)
			}
		})
	}
}
