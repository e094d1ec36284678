package model

import (
	"strings"
	"testing"
)

// A write granted while another process reads is a safety violation, and
// its explanation names the readers; a reader refused while the lock is
// only read is a refusal.
func TestRWExplanations(t *testing.T) {
	acq := func(p int, mode string, call, ret int64, out Outcome) Op {
		return Op{Process: p, Lock: "L", Kind: Acquire, Mode: mode, Call: call, Return: ret, Outcome: out}
	}
	twoHolders := &History{Ops: []Op{acq(1, ModeRead, 0, 1, OK), acq(2, ModeWrite, 5, 6, OK)}}
	r := CheckLinearizability(twoHolders, Options{})
	if r.Verdict != Invalid || len(r.Examples) != 1 || r.Examples[0].Class != ClassSafety ||
		!strings.Contains(r.Examples[0].Summary, "read by p1") {
		t.Fatalf("write over a reader: %s %+v", r, r.Examples)
	}
	refused := &History{Ops: []Op{acq(1, ModeRead, 0, 1, OK), acq(2, ModeRead, 5, 6, Fail)}}
	r = CheckLinearizability(refused, Options{})
	if r.Verdict != Invalid || len(r.Examples) != 1 || r.Examples[0].Class != ClassRefusal {
		t.Fatalf("a reader refused among readers: %s %+v", r, r.Examples)
	}
	downgrade := &History{Ops: []Op{acq(1, ModeWrite, 0, 1, OK), acq(1, ModeRead, 2, 3, OK),
		{Process: 1, Lock: "L", Kind: Release, Mode: ModeWrite, Call: 4, Return: 5, Outcome: OK},
		acq(2, ModeRead, 6, 7, OK), acq(3, ModeWrite, 8, 9, Fail)}}
	if r := CheckLinearizability(downgrade, Options{}); r.Verdict != Valid {
		t.Fatalf("downgrade: %s %+v", r, r.Examples)
	}
	upgrade := &History{Ops: []Op{acq(1, ModeRead, 0, 1, OK), acq(1, ModeWrite, 2, 3, OK)}}
	if r := CheckLinearizability(upgrade, Options{}); r.Verdict != Invalid {
		t.Fatalf("an upgrade granted: %s", r)
	}
}
