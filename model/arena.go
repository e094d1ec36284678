package model

import "github.com/anishathalye/porcupine"

// opArena hands out the op slices of one lock's segments from one backing
// array, so that building a lock's segments allocates about once, not once
// per growth of each segment's slice (the most a long check allocated
// after the history itself). Every slice it finishes is capped at its
// length: appending to one copies it and never writes into another.
type opArena struct {
	free []porcupine.Operation // the unused rest of the backing array
}

// newOpArena makes room for n ops.
func newOpArena(n int) *opArena {
	return &opArena{free: make([]porcupine.Operation, 0, n)[:n]}
}

// take returns an empty slice whose appends fill the arena's free space
// (and, once it is full, move to an array of their own).
func (a *opArena) take() []porcupine.Operation { return a.free[:0:len(a.free)] }

// finish caps ops, a slice from take grown by appends, at its length and
// gives the arena what it did not use. ops that moved out (or were
// dropped) take nothing from it.
func (a *opArena) finish(ops []porcupine.Operation) []porcupine.Operation {
	n := len(ops)
	if n > 0 && n <= len(a.free) && &ops[0] == &a.free[0] {
		a.free = a.free[n:]
	}
	return ops[:n:n]
}

// boxedOutcome is o as a porcupine Output without an allocation per op
// (a string in an interface is otherwise copied to the heap).
func boxedOutcome(o Outcome) interface{} {
	switch o {
	case OK:
		return OK
	case Fail:
		return Fail
	case Info:
		return Info
	}
	return o
}
