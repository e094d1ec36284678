package model

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func semOp(p int, kind Kind, n, call, ret int64, out Outcome) Op {
	return Op{Process: p, Lock: "s", Kind: kind, N: n, Call: call, Return: ret, Outcome: out, Wait: 1e9}
}

// The seed of FuzzHistory for semaphores reads and is checked by the
// semaphore checkers.
func TestSemaphoreHistoryReads(t *testing.T) {
	h := &History{Header: Header{Version: FormatVersion}, Ops: []Op{
		semOp(0, SemSet, 2, 1, 5, OK),
		semOp(1, SemAcquire, 2, 6, 9, OK),
		semOp(1, SemRelease, 2, 21, 25, OK),
	}}
	h.Ops[0].PermitID = "ab"
	var b strings.Builder
	if err := WriteHistory(&b, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"n":2`) || !strings.Contains(b.String(), `"permit_id":"ab"`) {
		t.Fatalf("fields not written: %s", b.String())
	}
	again, err := ReadHistory(strings.NewReader(b.String()))
	if err != nil || again.Validate() != nil {
		t.Fatalf("read back: %v", err)
	}
	rep := Check(again, Options{})
	if rep.Verdict != Valid {
		t.Fatalf("verdict %s:\n%s", rep.Verdict, rep)
	}
	if _, ok := rep.Result(CheckConserved); !ok {
		t.Fatalf("no %s result:\n%s", CheckConserved, rep)
	}
}

// A release that gave back more than it took ("release adds permits
// beyond the total") lets a later grant exceed the total: both the model
// and the conservation checker say so.
func TestSemOverReleaseCaught(t *testing.T) {
	h := &History{Ops: []Op{
		semOp(0, SemSet, 1, 0, 10, OK),
		semOp(1, SemAcquire, 1, 20, 30, OK),
		semOp(1, SemRelease, 1, 40, 50, OK), // the lock gave back 2
		semOp(2, SemAcquire, 1, 60, 70, OK),
		semOp(3, SemAcquire, 1, 80, 90, OK),
	}}
	if r := CheckSemLinearizable(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("linearizable: %s", r)
	}
	if r := CheckPermitsConserved(h, Options{}); r.Verdict != Invalid || r.Count != 1 {
		t.Fatalf("conserved: %s", r)
	}
}

// A waiter left waiting after addPermits made permits available ("waiters
// not woken by addPermits") fails liveness; one whose permits were held
// by others all along does not.
func TestSemLivenessWaiterNotWoken(t *testing.T) {
	const s = int64(1e9)
	h := &History{Ops: []Op{
		semOp(0, SemSet, 0, 0, 10, OK),
		semOp(1, SemAcquire, 1, 20, 5*s, Fail), // waits 5 s
		semOp(0, SemAdd, 1, s, s+10, OK),       // a permit from 1 s on
	}}
	h.Ops[1].Wait = 5 * s
	r := CheckPermitsLive(h, Options{})
	if r.Verdict != Invalid || !strings.Contains(r.Examples[0].Summary, "available from") {
		t.Fatalf("liveness: %s", r)
	}
	// Another process takes the added permit at once and keeps it.
	h.Ops = append(h.Ops, semOp(2, SemAcquire, 1, s+20, s+30, OK))
	if r := CheckPermitsLive(h, Options{}); r.Verdict != Valid {
		t.Fatalf("liveness with the permit taken: %s", r)
	}
	// A fault window over the stretch excuses it.
	h.Ops = h.Ops[:3]
	h.Faults = []Fault{{Name: "pause", Start: s / 2, End: 6 * s}}
	if r := CheckPermitsLive(h, Options{}); r.Verdict != Valid {
		t.Fatalf("liveness in a fault window: %s", r)
	}
	// A fault that hit the waiter's own process excuses it; one that hit
	// another process's link does not.
	h.Faults = []Fault{{Name: "proxy-blackhole", Target: "c1", Start: s / 2, End: 6 * s, Procs: []int{1}}}
	if r := CheckPermitsLive(h, Options{}); r.Verdict != Valid {
		t.Fatalf("liveness in a window of the waiter's own link: %s", r)
	}
	h.Faults[0].Procs, h.Faults[0].Target = []int{2}, "c2"
	if r := CheckPermitsLive(h, Options{}); r.Verdict != Invalid {
		t.Fatalf("liveness in a window of another process's link: %s", r)
	}
}

// Differential: a grant beyond the total is never linearizable, so the
// conservation checker never finds one in a history the model accepts.
func TestSemConservedImpliesModel(t *testing.T) {
	diffChecks(t, 500)
	found := 0
	rapid.Check(t, func(t *rapid.T) {
		h := genSemHistory(t, semGenConfig{steps: 30, objects: 1, perturb: true})
		if CheckPermitsConserved(h, Options{}).Verdict != Invalid {
			return
		}
		found++
		if r := CheckSemLinearizable(h, Options{Timeout: diffTimeout}); r.Verdict != Invalid {
			t.Fatalf("conservation violated but the model says %s\n%s", r.Verdict, dumpHistory(h))
		}
	})
	t.Logf("%d histories broke conservation", found)
}
