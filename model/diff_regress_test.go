package model

import "testing"

// Regressions found by the differential tests (diff_test.go, brute_test.go):
// each history once got a different verdict with segmenting than without.

// An Expire whose window opens while an ok acquire of its process is still
// in flight may take effect before that acquire does (the model places it
// anywhere in its window): the acquire's hold then outlasts it. The
// splitter once applied the Expire after the acquire (call order), counted
// p0 at zero holds after the window, cut there, and called p0's second
// release a release of a free lock, while the unsplit history is
// linearizable: Expire (no-op), acquire, acquire, release, release.
func TestExpireBeforeAnAcquireInFlightSplitsRight(t *testing.T) {
	h := hist(
		withLease(acq(0, "L", 10, 50, OK), 30),
		Op{Process: 0, Lock: "L", Kind: Expire, Call: 40, Return: 81, Outcome: OK},
		acq(0, "L", 100, 101, OK),
		rel(0, "L", 102, 103, OK),
		rel(0, "L", 104, 105, OK),
	)
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v := checkSplitEqualsWhole(t, h, Options{}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
	// A third release has no hold left in any order: still caught.
	h.Ops = append(h.Ops, rel(0, "L", 106, 107, OK))
	if v := checkSplitEqualsWhole(t, h, Options{}); v != Invalid {
		t.Fatalf("third release: verdict %s", v)
	}
}

// A process with no Expire op has no Expire window: its acquire at time 0
// once counted as inside one (the window's end defaulted to 0), made its
// count unknown for the rest of its life, and no cut was ever made.
func TestAcquireAtTimeZeroIsNotInAnExpireWindow(t *testing.T) {
	h := hist(
		acq(0, "L", 0, 1, OK), rel(0, "L", 2, 3, OK),
		acq(1, "L", 10, 11, OK), rel(1, "L", 12, 13, OK),
	)
	if n := len(segments(h, Options{})); n != 4 {
		t.Fatalf("%d segments, want 4 (a quiet point before each op but the first)", n)
	}
}

// A process retired while its Expire window is open may be retired before
// the Expire takes effect: its holds then become a retired process's, which
// may last a lease past the retirement. The splitter once dropped p2's hold
// at the Expire's call, saw nothing to retire at the Abandon, cut, and
// called p0's failed acquire a refusal on a free lock, while the unsplit
// history is linearizable: Abandon (p2 retired, holding until 265 at
// most), Expire (no-op), p0's fail.
func TestRetiredInsideExpireWindowSplitsRight(t *testing.T) {
	h := hist(
		withLease(acq(2, "L", 51, 52, OK), 80),
		Op{Process: 2, Lock: "L", Kind: Expire, Call: 131, Return: 133, Outcome: OK},
		Op{Process: 2, Lock: "L", Kind: Abandon, Call: 133, Return: 185, Outcome: OK},
		try(0, "L", 186, 187, Fail),
	)
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v := checkSplitEqualsWhole(t, h, Options{}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
	// After the retired hold's bound (185 + 80) the lock is free.
	h.Ops[3].Call, h.Ops[3].Return = 300, 301
	if v := checkSplitEqualsWhole(t, h, Options{}); v != Invalid {
		t.Fatalf("fail after the bound: verdict %s", v)
	}
}

// When an ok acquire is in flight at its process's Expire call, the hold
// may outlast the Expire, and with the acquire's lease: retired later, it
// may last that lease past the retirement. The splitter once bounded the
// retired hold by the leases left after the Expire (none) and cut before
// p5's failed acquire; unsplit, p2 may hold until 202 + 100000.
func TestUncertainHoldKeepsItsLeaseWhenRetired(t *testing.T) {
	h := hist(
		withLease(try(2, "L", 115, 118, OK), 80),
		Op{Process: 2, Lock: "L", Kind: Expire, Call: 195, Return: 198, Outcome: OK},
		withLease(try(2, "L", 194, 200, OK), 100000),
		Op{Process: 2, Lock: "L", Kind: Abandon, Call: 202, Return: 202, Outcome: OK},
		try(5, "L", 370, 371, Fail),
	)
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v := checkSplitEqualsWhole(t, h, Options{WatchdogLease: 50}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
}

// While an Expire makes its process's count unknown, so is the lease of its
// holds: p0 may still hold the acquire of 56 (lease 100000) when retired at
// 116. The splitter once bounded that hold by the leases it counted after
// the release of 60 (none), cut, and called p4's failed acquire a refusal
// on a free lock.
func TestUncertainHoldKeepsLaterLeasesWhenRetired(t *testing.T) {
	h := hist(
		withLease(try(0, "L", 2, 3, OK), 30),
		Op{Process: 0, Lock: "L", Kind: Expire, Call: 32, Return: 33, Outcome: OK},
		withLease(try(0, "L", 31, 53, OK), 0),
		withLease(try(0, "L", 56, 57, OK), 100000),
		rel(0, "L", 60, 61, OK),
		Op{Process: 0, Lock: "L", Kind: Abandon, Call: 116, Return: 116, Outcome: OK},
		try(4, "L", 237, 238, Fail),
	)
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v := checkSplitEqualsWhole(t, h, Options{WatchdogLease: 60}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
}

// A cancelled acquire may fail "whatever the lock's state" (Op.Cancelled),
// also when its process holds the lock: the cancellation may come before the
// request is sent. step once required a reentrant acquire to succeed even
// when cancelled (found by the brute force, which follows the doc).
func TestCancelledReentrantAcquireMayFail(t *testing.T) {
	c := try(0, "L", 2, 3, Fail)
	c.Cancelled = true
	h := hist(acq(0, "L", 0, 1, OK), c, rel(0, "L", 4, 5, OK))
	if v, _ := checkBrute(t, h, Options{}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
	h.Ops[1].Cancelled = false
	if v, _ := checkBrute(t, h, Options{}); v != Invalid {
		t.Fatalf("not cancelled: verdict %s", v)
	}
}

// An Expire is the server's act: whatever its recorded outcome, it never
// retires its process (Validate lets the process go on). An Expire recorded
// as info once counted as retiring p1 on its other locks, at an instant its
// own release of L1 overlaps: the splitter applied the retirement first,
// took p1's count to -1 and then, after p1's next grant, to 0 while p1
// held, and cut there.
func TestExpireRecordedAsInfoRetiresNobody(t *testing.T) {
	h := hist(
		acq(1, "L1", 0, 1, OK),
		Op{Process: 1, Lock: "L0", Kind: Expire, Call: 10, Return: 12, Outcome: Info},
		rel(1, "L1", 11, 13, OK),
		acq(1, "L1", 2000, 2001, OK),
		try(3, "L1", 2002, 2003, Fail),
		rel(1, "L1", 2004, 2005, OK),
	)
	if err := h.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if v, _ := checkBrute(t, h, Options{}); v != Valid {
		t.Fatalf("verdict %s", v)
	}
	checkSplitEqualsWhole(t, h, Options{})
}
