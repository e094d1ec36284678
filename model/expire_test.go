package model

import "testing"

// An overrun: p1 holds with a 100 ns lease and keeps working past it (its
// hold expires within [100, 103]); p2, waiting, is granted at 102; p1's
// late unlock must fail.
func overrunHistory(lateRelease Outcome, extra ...Op) *History {
	ops := []Op{
		withLease(acq(1, "L", 0, 1, OK), 100),
		{Process: 1, Lock: "L", Kind: Section, Call: 2, Return: 150, Read: 0, Write: 1, Outcome: OK, Seq: 2, Overrun: true},
		{Process: 1, Lock: "L", Kind: Expire, Call: 100, Return: 103, Outcome: OK},
		acq(2, "L", 50, 104, OK),
		{Process: 2, Lock: "L", Kind: Section, Call: 105, Return: 106, Read: 0, Write: 1, Outcome: OK, Seq: 1},
		rel(1, "L", 151, 152, lateRelease),
	}
	return hist(append(ops, extra...)...)
}

func TestExpireLetsTheNextHolderIn(t *testing.T) {
	h := overrunHistory(Fail, rel(2, "L", 160, 161, OK))
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	rep := Check(h, Options{})
	for _, r := range rep.Results {
		if r.Verdict != Valid {
			t.Errorf("%s: %s: %s", r.Checker, r.Verdict, r.Explanation)
		}
	}
}

func TestLateUnlockThatSucceedsIsCaught(t *testing.T) {
	if r := CheckLinearizability(overrunHistory(OK), Options{}); r.Verdict != Invalid {
		t.Fatalf("late unlock ok: %s: %s", r.Verdict, r.Explanation)
	}
}

func TestLateUnlockThatFreesTheNextHolderIsCaught(t *testing.T) {
	// The late unlock answered "not owner" but freed p2's hold: p3 is
	// granted while p2 still holds.
	h := overrunHistory(Fail,
		acq(3, "L", 140, 155, OK),
		sec(3, "L", 156, 157, 1, 2, OK),
		rel(3, "L", 158, 159, OK),
		rel(2, "L", 160, 161, OK))
	if r := CheckLinearizability(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("p3 granted while p2 holds: %s: %s", r.Verdict, r.Explanation)
	}
}

func TestWithoutExpireTheOverrunIsAViolation(t *testing.T) {
	h := overrunHistory(Fail)
	ops := h.Ops[:0]
	for _, o := range h.Ops {
		if o.Kind != Expire {
			ops = append(ops, o)
		}
	}
	h.Ops = ops
	if r := CheckLinearizability(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("no expire op: %s", r.Verdict)
	}
}

func TestOverrunSectionsAreExemptFromOverlapOnly(t *testing.T) {
	// p2's section overlaps p1's overrun section (expected) and p3 then
	// reads what p2 wrote: valid. A p3 that reads a stale value is a lost
	// update even though an overrun happened.
	base := []Op{
		{Process: 1, Lock: "L", Kind: Section, Call: 0, Return: 100, Read: 0, Write: 1, Outcome: OK, Seq: 2, Overrun: true},
		{Process: 2, Lock: "L", Kind: Section, Call: 10, Return: 20, Read: 0, Write: 1, Outcome: OK, Seq: 1},
	}
	good := hist(append(base, sec(3, "L", 110, 120, 1, 2, OK))...)
	good.Ops[2].Seq = 3
	if r := CheckMutex(good, Options{}); r.Verdict != Valid {
		t.Errorf("expected overlap: %s: %s", r.Verdict, r.Explanation)
	}
	bad := hist(append(base, sec(3, "L", 110, 120, 0, 1, OK))...)
	bad.Ops[2].Seq = 3
	if r := CheckMutex(bad, Options{}); r.Verdict != Invalid {
		t.Errorf("stale read after an overrun: %s: %s", r.Verdict, r.Explanation)
	}
}

func TestExpireEndsTheHoldForLiveness(t *testing.T) {
	// p1's hold expired at 103 and p2 then waited on a free lock until
	// 5000: far over 2 leases of 100.
	h := hist(
		withLease(acq(1, "L", 0, 1, OK), 100),
		Op{Process: 1, Lock: "L", Kind: Expire, Call: 100, Return: 103, Outcome: OK},
		withLease(acq(2, "L", 50, 5000, OK), 100),
		rel(1, "L", 6000, 6001, Fail),
		rel(2, "L", 6002, 6003, OK))
	if r := CheckLive(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("wait on an expired hold: %s: %s", r.Verdict, r.Explanation)
	}
}

func TestFreeWaitBoundsOneStretchNotTheSum(t *testing.T) {
	// p2 waits 1000 through ten hand-offs with gaps of 20: 200 free in
	// total, none longer than 20. Then p3 waits through one free stretch
	// of 300.
	var ops []Op
	for i := range 10 {
		p := 10 + i
		at := int64(i * 100)
		ops = append(ops, acq(p, "L", at, at+1, OK), rel(p, "L", at+80, at+81, OK))
	}
	ops = append(ops, acq(2, "L", 0, 1000, OK), rel(2, "L", 1001, 1002, OK))
	opts := Options{FreeWait: 50, MaxWait: WaitOff}
	if r := CheckLive(hist(ops...), opts); r.Verdict != Valid {
		t.Fatalf("short gaps: %s: %s", r.Verdict, r.Explanation)
	}
	ops = append(ops, acq(3, "L", 1003, 1400, OK), rel(3, "L", 1401, 1402, OK))
	if r := CheckLive(hist(ops...), opts); r.Verdict != Invalid || r.Count != 1 {
		t.Fatalf("one long stretch: %s (%d): %s", r.Verdict, r.Count, r.Explanation)
	}
}

func TestOverrunWriteLandingInsideTheNextSectionIsExpected(t *testing.T) {
	// p0 writes 5; p2 reads it; p1's overrun write (read 3, write 4) lands
	// while p2 works; p2 writes 6 and p3 reads 6: expected.
	seq := func(o Op, n int64) Op { o.Seq = n; return o }
	overrun := seq(sec(1, "L", 0, 20, 3, 4, OK), 2)
	overrun.Overrun = true
	h := hist(
		seq(sec(0, "L", -10, -5, 4, 5, OK), 1),
		overrun,
		seq(sec(2, "L", 10, 30, 5, 6, OK), 3),
		seq(sec(3, "L", 40, 50, 6, 7, OK), 4))
	if r := CheckMutex(h, Options{}); r.Verdict != Valid {
		t.Fatalf("%s: %s %v", r.Verdict, r.Explanation, r.Examples)
	}
}

func TestCancelledAcquireMayFailOnAFreeLock(t *testing.T) {
	o := acq(1, "L", 0, 1, Fail)
	if r := CheckLinearizability(hist(o), Options{}); r.Verdict != Invalid {
		t.Fatalf("a blocking acquire failed on a free lock: %s", r.Verdict)
	}
	o.Cancelled = true
	if r := CheckLinearizability(hist(o), Options{}); r.Verdict != Valid {
		t.Fatalf("a cancelled acquire failed on a free lock: %s: %s", r.Verdict, r.Explanation)
	}
}

func TestOverrunWriteLandingJustBeforeTheNextReadIsExpected(t *testing.T) {
	// p1's overrun write (3 → 4) lands just before p3 reads, but returns
	// after p3 began: p3 may have read 4 or 6.
	seq := func(o Op, n int64) Op { o.Seq = n; return o }
	overrun := seq(sec(1, "L", 0, 45, 3, 4, OK), 3)
	overrun.Overrun = true
	for _, read := range []int64{4, 6} {
		h := hist(
			seq(sec(0, "L", -10, -5, 4, 5, OK), 1),
			seq(sec(2, "L", 10, 30, 5, 6, OK), 2),
			overrun,
			seq(sec(3, "L", 40, 50, read, read+1, OK), 4))
		if r := CheckMutex(h, Options{}); r.Verdict != Valid {
			t.Errorf("p3 read %d: %s: %s %v", read, r.Verdict, r.Explanation, r.Examples)
		}
	}
	h := hist(
		seq(sec(0, "L", -10, -5, 4, 5, OK), 1),
		seq(sec(2, "L", 10, 30, 5, 6, OK), 2),
		overrun,
		seq(sec(3, "L", 40, 50, 5, 6, OK), 4))
	if r := CheckMutex(h, Options{}); r.Verdict != Invalid {
		t.Errorf("p3 read the value before p2's write: %s", r.Verdict)
	}
}

// The owner releases inside its own Expire window (its lease had not yet
// run out): legal. The splitter once applied the Expire at its call, took
// p1's count to -1 at the release, and cut later where p1 really held one
// hold, so the next segment began with p1's release of a "free" lock.
func TestReleaseInsideExpireWindowSplitsRight(t *testing.T) {
	h := hist(
		withLease(acq(1, "L", 0, 1, OK), 100),
		Op{Process: 1, Lock: "L", Kind: Expire, Call: 95, Return: 110, Outcome: OK},
		rel(1, "L", 98, 99, OK), // before the lease ran out
		acq(1, "L", 200, 201, OK),
		acq(2, "L", 300, 301, Fail), // a quiet point before: p1 holds one
		rel(1, "L", 400, 401, OK),
	)
	h.Ops[4].Wait = 1
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if r := CheckLinearizability(h, Options{}); r.Verdict != Valid {
		t.Fatalf("release inside the expire window: %s: %s", r.Verdict, r.Explanation)
	}
	// The same release after the window closed must still be caught.
	h.Ops[2].Call, h.Ops[2].Return = 120, 121
	if r := CheckLinearizability(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("release after the expire window: %s: %s", r.Verdict, r.Explanation)
	}
}
