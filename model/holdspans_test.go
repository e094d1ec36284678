package model

import (
	"reflect"
	"testing"
)

// Holds runs from a grant's return to the call of the op that ended the
// belief: a re-entry keeps it, the last release ends it; a hold never
// released lasts to the end of the history.
func TestHolds(t *testing.T) {
	h := &History{Ops: []Op{
		{Process: 1, Lock: "a", Kind: Acquire, Call: 0, Return: 10, Outcome: OK},
		{Process: 1, Lock: "a", Kind: Acquire, Call: 20, Return: 30, Outcome: OK},
		{Process: 1, Lock: "a", Kind: Release, Call: 40, Return: 50, Outcome: OK},
		{Process: 1, Lock: "a", Kind: Release, Call: 60, Return: 70, Outcome: OK},
		{Process: 2, Lock: "a", Kind: Acquire, Call: 65, Return: 80, Outcome: OK},
		{Process: 3, Lock: "b", Kind: Acquire, Call: 5, Return: 6, Outcome: Fail},
	}}
	want := []HoldSpan{
		{Lock: "a", Process: 1, Start: 10, End: 60, EndKind: Release, EndOutcome: OK},
		{Lock: "a", Process: 2, Start: 80, End: 80},
	}
	got := Holds(h)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Holds = %+v, want %+v", got, want)
	}
	if !got[0].Released() || got[1].Released() {
		t.Error("Released: want the first only")
	}
}
