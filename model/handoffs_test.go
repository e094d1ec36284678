package model

import "testing"

// TestCountHandoffs: grants of one lock ordered by their return; a grant to
// the owner that had it last is a reentry (or a new hold of the same owner),
// to another owner of the same client process a hand-off within, to an
// owner of another (or of no recorded) process a hand-off across. Locks are
// counted apart.
func TestCountHandoffs(t *testing.T) {
	grant := func(p, client int, lock string, ret int64) Op {
		return Op{Process: p, Client: client, Lock: lock, Kind: Acquire, Outcome: OK, Call: ret - 1, Return: ret}
	}
	h := &History{Ops: []Op{
		grant(1, 1, "a", 10),
		grant(1, 1, "a", 20), // reentry: none
		grant(2, 1, "a", 40), // across: after p3's, which returned first
		grant(3, 2, "a", 30), // across
		{Process: 4, Client: 2, Lock: "a", Kind: Acquire, Outcome: Fail, Call: 41, Return: 45},
		{Process: 4, Client: 2, Lock: "a", Kind: Release, Outcome: OK, Call: 46, Return: 47},
		grant(4, 2, "a", 50), // across
		grant(5, 2, "a", 60), // within process 2
		grant(6, 1, "b", 5),
		grant(7, 1, "b", 6), // within, on lock b
	}}
	got := CountHandoffs(h)
	want := Handoffs{Within: 2, Across: 3, Grouped: true}
	if got != want {
		t.Fatalf("CountHandoffs = %+v, want %+v", got, want)
	}
	for i := range h.Ops {
		h.Ops[i].Client = 0
	}
	if got, want := CountHandoffs(h), (Handoffs{Across: 5}); got != want {
		t.Fatalf("without clients: %+v, want %+v (every owner its own process)", got, want)
	}
}
