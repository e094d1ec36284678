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

// countsContradict reports whether the recorded outcomes alone rule out
// every linearization of a segment: at some quiet instant (no op in
// flight), with no process's count left unknown by an Expire, two live
// processes hold the lock by their counts (#ok acquires - #ok releases),
// or one has released more than it acquired. The ops before a quiet
// instant are linearized before every op after it, and in each of their
// linearizations a live process holds exactly its count (see segments), so
// no order of them is a mutex's. It returns the index of the first op
// after that instant (0: none found), which bounds the segment's shortest
// illegal prefix. false decides nothing: porcupine then searches.
func countsContradict(ops []porcupine.Operation) (int, bool) {
	b := newBalances()
	var maxRet int64
	for i, op := range ops {
		in := op.Input.(*stepInput)
		if i > 0 && maxRet < op.Call && len(b.uncertain) == 0 && (b.positive >= 2 || b.negative >= 1) {
			return i, true
		}
		maxRet = max(maxRet, op.Return)
		if in.init != nil {
			if in.init.Held {
				b.adjust(in.process, in.init.Count)
			}
			continue
		}
		b.apply(in)
	}
	if len(ops) > 0 && len(b.uncertain) == 0 && (b.positive >= 2 || b.negative >= 1) {
		return len(ops), true
	}
	return 0, false
}
