package model

import (
	"cmp"
	"slices"

	"github.com/anishathalye/porcupine"
)

// greedyWitness reports whether a linearization of a segment's ops is
// found without search: it builds one order op by op, each time taking an
// op that no remaining op precedes in real time (its call is at or before
// every remaining op's return, as porcupine orders calls before returns
// of the same instant) and that step accepts in the state reached so far.
// Among those it takes one that leaves the state as it is (a refused
// TryLock while another holds), else the one that must return first. It
// never backtracks, so it costs O(n·k) steps for n ops of which at most
// k are in flight at once, where porcupine's search copies a bitset of
// the segment at every step.
//
// true is a proof: the order keeps every op after each op that returned
// before it was called, and step accepts every op of it in turn (a
// segment's synthetic first op sets its starting state), so it is a
// linearization and the segment is linearizable, as porcupine would find.
// false decides nothing: porcupine then searches every order. A
// contended lock's waiters make both of orderWitness's fixed orders fail
// (a blocking acquire called long before the grant it returns with); this
// order follows the state instead.
func greedyWitness(ops []porcupine.Operation) bool {
	n := len(ops)
	byCall := make([]int32, n)
	for i := range byCall {
		byCall[i] = int32(i)
	}
	slices.SortFunc(byCall, func(a, b int32) int { return cmp.Compare(ops[a].Call, ops[b].Call) })
	// sufMin[i]: the earliest return among byCall[i:], the ops not yet open.
	sufMin := make([]int64, n+1)
	sufMin[n] = 1<<63 - 1
	for i := n - 1; i >= 0; i-- {
		sufMin[i] = min(sufMin[i+1], ops[byCall[i]].Return)
	}
	var s lockState
	open := make([]int32, 0, 16) // remaining ops that no remaining op precedes
	next := 0                    // byCall[next:] are not open yet
	for placed := 0; placed < n; placed++ {
		bound := sufMin[next] // the earliest return of any remaining op
		for _, i := range open {
			bound = min(bound, ops[i].Return)
		}
		for next < n && ops[byCall[next]].Call <= bound {
			open = append(open, byCall[next])
			next++
		}
		pick, ps, ok := pickGreedy(ops, open, s)
		if !ok {
			return false
		}
		s = ps
		open[pick] = open[len(open)-1]
		open = open[:len(open)-1]
	}
	return true
}

// pickGreedy chooses, among the open ops, the one greedyWitness places
// next in state s: an op step accepts that leaves s as it is, else the
// accepted op that returns first. It returns its index in open and the
// state after it; false when step accepts none.
func pickGreedy(ops []porcupine.Operation, open []int32, s lockState) (int, lockState, bool) {
	best, found := 0, false
	var bestState lockState
	for k, i := range open {
		ok, next, _ := step(s, ops[i].Input.(*stepInput))
		switch {
		case !ok:
		case next == s:
			return k, next, true
		case !found || ops[i].Return < ops[open[best]].Return:
			best, bestState, found = k, next, true
		}
	}
	return best, bestState, found
}
