package model

import (
	"strings"
	"testing"
)

// A failed TryLock on a free lock that forces an order in which a grant
// meets another holder: the contradiction disappears once that one refusal
// is set aside, so it is a refusal, never "two holders" nor "an
// implementation bug".
func TestRefusalIsNotCalledTwoHolders(t *testing.T) {
	h := hist(
		acq(1, "L", 0, 10, OK),
		try(2, "L", 1, 2, Fail),
		acq(3, "L", 3, 4, OK),
		rel(3, "L", 5, 6, OK),
		rel(1, "L", 11, 12, OK),
	)
	rep := Check(h, Options{})
	r, _ := rep.Result(CheckLinearizable)
	if r.Verdict != Invalid || r.Class != ClassRefusal || rep.Class() != ClassRefusal {
		t.Fatalf("want an invalid refusal, got %s (%s), report class %q:\n%s", r.Verdict, r.Class, rep.Class(), r)
	}
	text := r.String()
	if !strings.Contains(text, "p2 failed to acquire a free lock") || strings.Contains(text, "implementation bug") || strings.Contains(text, "held it") && strings.Contains(text, "granted") {
		t.Errorf("explanation does not name the refusal alone:\n%s", text)
	}
}

func TestTwoHoldersAreSafety(t *testing.T) {
	h := hist(acq(1, "L", 0, 1, OK), acq(2, "L", 2, 3, OK))
	rep := Check(h, Options{})
	if r, _ := rep.Result(CheckLinearizable); r.Verdict != Invalid || r.Class != ClassSafety {
		t.Fatalf("want invalid safety, got %s (%s):\n%s", r.Verdict, r.Class, r)
	}
	if rep.Class() != ClassSafety {
		t.Fatalf("report class %q", rep.Class())
	}
}

func TestClassWorse(t *testing.T) {
	for _, c := range []struct{ a, b, want Class }{
		{"", ClassLiveness, ClassLiveness},
		{ClassLiveness, "", ClassLiveness},
		{ClassRefusal, ClassSafety, ClassSafety},
		{ClassSafety, ClassFairness, ClassSafety},
		{ClassContract, ClassRefusal, ClassRefusal},
	} {
		if got := c.a.Worse(c.b); got != c.want {
			t.Errorf("%q.Worse(%q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

// A TryLock that answers long after its wait, outside faults, breaks the
// contract; inside a fault window it is not judged.
func TestTryLockOverstayingItsWait(t *testing.T) {
	ms := int64(1e6)
	slow := try(1, "L", 0, 400*ms, Fail)
	slow.Wait = 18 * ms
	// p1's first call, which pays its client's start-up and is not judged
	first := rel(1, "L", 0, 0, Fail)
	h := hist(first, acq(2, "L", 0, 1, OK), slow, rel(2, "L", 401*ms, 402*ms, OK))
	r := CheckTiming(h, Options{})
	if r.Verdict != Invalid || r.Count != 1 {
		t.Fatalf("want one contract violation, got %s:\n%s", r.Verdict, r)
	}
	h.Faults = []Fault{{Name: "latency", Start: 10 * ms, End: 20 * ms}}
	if r := CheckTiming(h, Options{}); r.Verdict != Valid {
		t.Fatalf("a TryLock that met a fault is not judged: %s", r)
	}
	h.Faults = nil
	h.Ops[2].Return = 18*ms + int64(DefaultTryLockSlack) // within the slack
	if r := CheckTiming(h, Options{}); r.Verdict != Valid {
		t.Fatalf("within the slack: %s", r)
	}
	h.Ops[2].Return = 400 * ms
	if r := CheckTiming(hist(h.Ops[1:]...), Options{}); r.Verdict != Valid {
		t.Fatalf("a process's first call is not judged: %s", r)
	}
}

// Once a lock's history contradicts itself, the states computed for later
// segments rest on contradicted outcomes: only the first contradiction is
// explained and counted; the later ones are said to follow from it.
func TestLaterContradictionsFollowTheFirst(t *testing.T) {
	h := hist(
		acq(1, "L", 0, 1, OK), acq(2, "L", 2, 3, OK), rel(1, "L", 4, 5, OK), rel(2, "L", 6, 7, OK),
		acq(3, "L", 10, 11, OK), acq(4, "L", 12, 13, OK), rel(3, "L", 14, 15, OK), rel(4, "L", 16, 17, OK),
		acq(5, "M", 0, 1, OK), acq(6, "M", 2, 3, OK),
	)
	r := CheckLinearizability(h, Options{})
	if r.Verdict != Invalid || r.Count != 2 || len(r.Examples) != 2 {
		t.Fatalf("want 2 contradictions (one per lock) with 2 examples, got %s count %d, %d examples:\n%s", r.Verdict, r.Count, len(r.Examples), r)
	}
	if r.Examples[0].Lock != "L" || r.Examples[0].Ops[0].Process != 1 || !strings.Contains(r.Explanation, "1 later segments") {
		t.Errorf("the first contradiction on L is not the one explained, or the later one is not said to follow:\n%s", r)
	}
}

// A holder told it no longer holds after the server lost its data forgot
// nothing of its own: the hold was lost, a safety matter under that fault.
func TestReleaseRefusedAfterALossyFaultIsSafety(t *testing.T) {
	h := hist(acq(1, "L", 0, 1, OK), rel(1, "L", 10, 11, Fail))
	r := CheckLinearizability(h, Options{})
	r.classify()
	if r.Class != ClassRefusal {
		t.Fatalf("no fault: want a refusal, got %s (%s)", r.Class, r)
	}
	h.Faults = []Fault{{Name: "redis-restart-empty", Start: 4, End: 6}}
	r = CheckLinearizability(h, Options{})
	r.classify()
	if r.Class != ClassSafety || !strings.Contains(r.String(), "hold was lost") {
		t.Fatalf("after a restart without persistence: want a lost hold (safety), got %s:\n%s", r.Class, r)
	}
}

// A quorum lock's acquires may all fail on a free lock while they run
// together (the votes split); alone, the same refusal is still one.
func TestSplitVotesMayRefuseWhileContended(t *testing.T) {
	h := hist(try(1, "L", 0, 10, Fail), try(2, "L", 2, 12, Fail))
	if r := CheckLinearizability(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("no split votes: two refusals of a free lock are violations: %s", r)
	}
	if r := CheckLinearizability(h, Options{SplitVotes: true}); r.Verdict != Valid {
		t.Fatalf("split votes: %s", r)
	}
	h.Ops = append(h.Ops, try(1, "L", 40, 41, Fail))
	if r := CheckLinearizability(h, Options{SplitVotes: true}); r.Verdict != Invalid {
		t.Fatalf("an uncontended refusal must stay a violation: %s", r)
	}
}

// A lock whose failed attempt holds for a moment (redsync: an attempt
// whose reply came too late is given back, then tried again, in one call)
// may refuse a free lock while another acquire is in flight, as in
// latency-short seed 20786100: p2's acquire took the key, gave it back and
// took it again within its call, and p1's TryLock met the first attempt.
// Alone, the refusal is still one; and nothing else of SplitVotes comes
// with it.
func TestAttemptsHoldMayRefuseWhileAnotherAcquires(t *testing.T) {
	h := hist(acq(2, "L", 0, 60, OK), try(1, "L", 20, 30, Fail), acq(1, "L", 31, 50, OK), rel(1, "L", 52, 53, OK), rel(2, "L", 70, 71, OK))
	if r := CheckLinearizability(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("attempts do not hold: a refusal of a free lock is a violation: %s", r)
	}
	if r := CheckLinearizability(h, Options{AttemptsHold: true}); r.Verdict != Valid {
		t.Fatalf("attempts hold: %s", r)
	}
	h.Ops = append(h.Ops, try(1, "L", 80, 81, Fail))
	if r := CheckLinearizability(h, Options{AttemptsHold: true}); r.Verdict != Invalid {
		t.Fatalf("a refusal with no acquire in flight must stay a violation: %s", r)
	}
}

// A late unlock that answers ok but frees nothing (Redisson's fair lock
// does so by design) breaks the contract, not mutual exclusion; one that
// frees the next holder stays a safety violation.
func TestLateUnlockAnsweredOkIsAContractProblem(t *testing.T) {
	r := CheckLinearizability(overrunHistory(OK), Options{})
	r.classify()
	if r.Verdict != Invalid || r.Class != ClassContract {
		t.Fatalf("late unlock ok, nothing freed: want invalid (contract), got %s (%s):\n%s", r.Verdict, r.Class, r)
	}
	h := overrunHistory(Fail,
		acq(3, "L", 140, 155, OK),
		sec(3, "L", 156, 157, 1, 2, OK),
		rel(3, "L", 158, 159, OK),
		rel(2, "L", 160, 161, OK))
	r = CheckLinearizability(h, Options{})
	r.classify()
	if r.Verdict != Invalid || r.Class != ClassSafety {
		t.Fatalf("a third holder: want invalid (safety), got %s (%s):\n%s", r.Verdict, r.Class, r)
	}
}

// Unlocks of nothing answered ok, more than one in a segment (Redisson's
// RedLock answers every one so, clock-jump-backward seed 20786100), are a
// contract problem together, though no single one explains the segment:
// each is empty by its process's own record. Just outside: the second
// release of a re-entered hold frees something, and an unlock after an
// acquire of unknown outcome is not known to be empty.
func TestUnheldUnlocksTogetherAreAContractProblem(t *testing.T) {
	h := hist(acq(2, "L", 0, 5, OK), rel(2, "L", 10, 12, OK), acq(1, "L", 1, 15, OK), rel(2, "L", 16, 17, OK),
		acq(0, "L", 2, 60, OK), rel(1, "L", 30, 31, OK), rel(2, "L", 40, 41, OK), rel(0, "L", 70, 71, OK))
	r := CheckLinearizability(h, Options{})
	r.classify()
	if r.Verdict != Invalid || r.Class != ClassContract || r.Examples[0].Shape != ShapeUnlockNotHeld {
		t.Fatalf("two unlocks of nothing answered ok: want invalid (contract, %s), got %s (%s):\n%s", ShapeUnlockNotHeld, r.Verdict, r.Class, r)
	}
	empty := lateUnlocks(h)
	if len(empty) != 2 || empty[&h.Ops[3]] != unlockUnheld || empty[&h.Ops[6]] != unlockUnheld {
		t.Fatalf("empty unlocks %v, want ops 3 and 6 unheld", empty)
	}
	reentered := hist(acq(2, "L", 0, 5, OK), acq(2, "L", 6, 7, OK), rel(2, "L", 10, 12, OK), rel(2, "L", 16, 17, OK))
	if got := lateUnlocks(reentered); len(got) != 0 {
		t.Fatalf("a re-entered hold's releases: empty unlocks %v, want none", got)
	}
	unknown := hist(acq(2, "L", 0, 5, Info), rel(2, "L", 10, 12, OK))
	if got := lateUnlocks(unknown); len(got) != 0 {
		t.Fatalf("after an acquire of unknown outcome: empty unlocks %v, want none", got)
	}
}

func TestInvalidCheckers(t *testing.T) {
	rep := Report{Results: []Result{
		{Checker: CheckLinearizable, Verdict: Invalid}, {Checker: CheckMutualExclusion, Verdict: Valid},
		{Checker: CheckLiveness, Verdict: Unknown}, {Checker: CheckFairness, Verdict: Invalid},
	}}
	if got := rep.InvalidCheckers(); len(got) != 2 || got[0] != CheckLinearizable || got[1] != CheckFairness {
		t.Errorf("InvalidCheckers = %v", got)
	}
	if got := (Report{}).InvalidCheckers(); got != nil {
		t.Errorf("no results: %v", got)
	}
}
