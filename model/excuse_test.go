package model

import (
	"testing"
	"time"
)

// A crash of the holder holds a waiter up until the crashed hold's lease
// runs out (plus the lease bound's slack), no longer: a wait that goes on
// past the liveness bound is the lock's. The lease is 1500 ms, the slack
// 550 ms: the crash at 2000 excuses the wait from 2000 to 4055, and the
// bound is 3 s of the rest (the waiter asked at 1000).
func TestCrashOfTheHolderExcusesItsLease(t *testing.T) {
	crashed := []Op{aAcq(3, 0, 5), {Process: 3, Lock: "L", Kind: Abandon, Call: msT(2000), Return: msT(2000), Outcome: OK}}
	crash := aFault("client-crash", "w3", 2000, 2005, 3)
	for _, c := range []struct {
		name string
		gave float64 // when the waiter gave up
		want Verdict
	}{
		{"gave up within the bound after the lease", 6000, Valid},
		{"gave up past the bound after the lease", 6200, Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			wait := Op{Process: 5, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(1000), Return: msT(c.gave), Outcome: Fail}
			h := &History{Ops: append(append([]Op(nil), crashed...), wait), Faults: []Fault{crash}}
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, MaxWait: WaitBound(3 * time.Second)}
			if r := CheckLive(h, opts); r.Verdict != c.want {
				t.Errorf("liveness: %s, want %s", r, c.want)
			}
		})
	}
}

// A fault that hits the process holding the lock a waiter waits on holds
// that waiter up too (it sits out the holder's lease): a crash or a stall
// of the holder excuses the wait, one of a process that never held the
// lock in the wait does not, nor a fault that allows a holder nothing.
func TestFaultOfTheHolderExcusesTheWait(t *testing.T) {
	wait := Op{Process: 5, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(1000), Return: msT(5000), Outcome: OK}
	held := []Op{aAcq(3, 0, 5), aRel(3, 4000, 4005, OK)}
	heldElsewhere := []Op{{Process: 3, Lock: "M", Kind: Acquire, Blocking: true, Call: 0, Return: msT(5), Outcome: OK}}
	released := []Op{aAcq(3, 0, 5), aRel(3, 500, 505, OK)}
	for _, c := range []struct {
		name  string
		ops   []Op
		fault Fault
		want  Verdict
	}{
		{"crash of the holder", held, aFault("client-crash", "w3", 2000, 2005, 3), Valid},
		{"stall of the holder", held, aFault("client-stall", "w3", 1500, 3500, 3), Valid},
		{"crash of a process holding another lock", heldElsewhere, aFault("client-crash", "w3", 2000, 2005, 3), Invalid},
		{"crash of a process that released before the fault", released, aFault("client-crash", "w3", 2000, 2005, 3), Invalid},
		{"latency on the holder's link", held, aFault("proxy-latency", "c3", 1500, 3500, 3), Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: append(append([]Op(nil), c.ops...), wait), Faults: []Fault{c.fault}}
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, MaxWait: WaitBound(3 * time.Second)}
			if r := CheckLive(h, opts); r.Verdict != c.want {
				t.Errorf("liveness: %s, want %s", r, c.want)
			}
		})
	}
}

// A fair lock's waiter behind a queued waiter that a crash killed may wait
// out the lock's claimed queue timeout (Options.QueueTimeout) before the
// liveness bound counts (client-crash, redisson-fair, seed 20786100: a
// later process waited its 5 s op timeout behind dead waiters). Just
// outside: a waiter that asked past the dead waiter's timeout, or one
// queued before the dead waiter, is held to the bound.
func TestDeadWaiterExcusesTheFairQueue(t *testing.T) {
	dead := withEnq(Op{Process: 3, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(500), Return: msT(2005), Outcome: Info}, msT(510))
	crash := aFault("client-crash", "w3", 2000, 2005, 3)
	held := []Op{withEnq(aAcq(2, 0, 5), 1), aRel(2, 300, 305, OK)}
	for _, c := range []struct {
		name      string
		call, enq float64
		want      Verdict
	}{
		{"asked behind the dead waiter", 3000, 0, Valid},
		{"asked past the dead waiter's timeout", 8000, 0, Invalid},
		{"queued before the dead waiter", 400, 400, Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			wait := Op{Process: 5, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(c.call), Return: msT(c.call + 6000), Outcome: Info}
			if c.enq > 0 {
				wait.Enqueued = msT(c.enq)
			}
			h := &History{Ops: append(append([]Op(nil), held...), dead, wait), Faults: []Fault{crash}}
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, MaxWait: WaitBound(3 * time.Second), QueueTimeout: 5 * time.Second}
			if r := CheckLive(h, opts); r.Verdict != c.want {
				t.Errorf("liveness: %s, want %s", r, c.want)
			}
		})
	}
}
