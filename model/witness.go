package model

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// orderWitness reports whether one of two orders of a segment's ops is a
// linearization: the ops in order of return, or in order of call. Both
// keep every op after each op that returned before it was called, so
// when step accepts every op in one of them, in turn from a free lock,
// that order is a sequential history the real-time order allows and the
// segment is linearizable, as porcupine would find, without its search.
// false decides nothing: porcupine then searches every order.
func orderWitness(ops []porcupine.Operation) bool {
	idx := make([]int32, len(ops))
	for _, key := range []func(porcupine.Operation) int64{
		func(op porcupine.Operation) int64 { return op.Return },
		func(op porcupine.Operation) int64 { return op.Call },
	} {
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortFunc(idx, func(a, b int32) int { return cmp.Or(cmp.Compare(key(ops[a]), key(ops[b])), cmp.Compare(a, b)) })
		if replays(ops, idx) {
			return true
		}
	}
	return false
}

// replays reports whether step accepts ops in the order idx, from a free
// lock.
func replays(ops []porcupine.Operation, idx []int32) bool {
	var s lockState
	for _, i := range idx {
		ok, next, _ := step(s, ops[i].Input.(*stepInput))
		if !ok {
			return false
		}
		s = next
	}
	return true
}
