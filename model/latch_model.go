package model

import (
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
)

// Kinds of the count-down latch (Redisson RCountDownLatch). Op.N is the
// count a LatchSet sets.
const (
	// LatchSet is trySetCount(N): ok: the latch did not exist and now
	// counts N; fail: it existed.
	LatchSet Kind = "latch-set"
	// LatchCountDown decrements the count; the latch is deleted (open) at
	// 0. ok: done; fail: definitely not.
	LatchCountDown Kind = "latch-countdown"
	// LatchAwait waits at most Wait for the count to reach 0: ok: it read
	// 0 (the latch was open); fail: it did not within Wait.
	LatchAwait Kind = "latch-await"
)

// isLatchKind reports whether k is one of the latch kinds.
func isLatchKind(k Kind) bool { return k == LatchSet || k == LatchCountDown || k == LatchAwait }

// latchState is the sequential RCountDownLatch: the count at its key, or
// no key (open; reads as 0).
type latchState struct {
	Exists bool
	Count  int64
}

// latchStep returns the states op may lead to from s, as the scripts do:
// trySetCount sets a missing key; countDown DECRs (a missing key counts
// from 0) and deletes the key at 0 or below; await is ok only where the
// count reads 0 (fail where it does not, or when the caller cancelled);
// info ops take effect or not.
func latchStep(s latchState, in semInput) []latchState {
	var next latchState
	replied := true
	switch in.kind {
	case LatchSet:
		next, replied = s, !s.Exists
		if replied {
			next = latchState{Exists: true, Count: in.n}
		}
	case LatchCountDown:
		if v := s.Count - 1; v > 0 {
			next = latchState{Exists: true, Count: v}
		}
	case LatchAwait:
		next, replied = s, !s.Exists || s.Count == 0
	}
	switch in.outcome {
	case OK:
		if replied {
			return []latchState{next}
		}
	case Fail:
		if in.kind == LatchCountDown || !replied || (in.kind == LatchAwait && in.cancelled) {
			return []latchState{s}
		}
	default:
		return []latchState{s, next}
	}
	return nil
}

// latchSet is a set of possible latch states, sorted, without duplicates.
type latchSet []latchState

func (a latchSet) norm() latchSet {
	slices.SortFunc(a, func(x, y latchState) int {
		switch {
		case x.Exists != y.Exists:
			if x.Exists {
				return 1
			}
			return -1
		case x.Count < y.Count:
			return -1
		case x.Count > y.Count:
			return 1
		}
		return 0
	})
	return slices.Compact(a)
}

func latchModel(init latchSet) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return init },
		Step: func(state, input, _ interface{}) (bool, interface{}) {
			var out latchSet
			for _, s := range state.(latchSet) {
				out = append(out, latchStep(s, input.(semInput))...)
			}
			return len(out) > 0, out.norm()
		},
		Equal: func(a, b interface{}) bool { return slices.Equal(a.(latchSet), b.(latchSet)) },
		DescribeOperation: func(input, _ interface{}) string {
			in := input.(semInput)
			return fmt.Sprintf("%s %d -> %s", in.kind, in.n, in.outcome)
		},
	}
}

// isLatchObject reports whether the object's ops are a latch's.
func isLatchObject(h *History, ix []int) bool {
	return len(ix) > 0 && isLatchKind(h.Ops[ix[0]].Kind)
}

// latchSegments cuts a latch's ops at quiet points whose end states were
// searched for (as permitSegments does).
func latchSegments(h *History, name string, ix []int) []objSegment {
	step := func(s latchState, i int) []latchState { return latchStep(s, semInputOf(h, i)) }
	key := func(s latchState) string { return fmt.Sprintf("%v/%d", s.Exists, s.Count) }
	var out []objSegment
	cut := func(init latchSet, ops []int) {
		pops := make([]porcupine.Operation, 0, len(ops))
		for _, i := range ops {
			o := &h.Ops[i]
			pops = append(pops, porcupine.Operation{ClientId: o.Process, Input: semInputOf(h, i), Call: o.Call, Return: o.effectiveDeadline()})
		}
		start := fmt.Sprintf("one of %d states", len(init))
		if len(init) == 1 {
			start = fmt.Sprintf("count %d", init[0].Count)
		}
		out = append(out, objSegment{name: name, ops: ops, start: start, model: latchModel(init), pops: pops})
	}
	init, cur := latchSet{{}}, []int(nil)
	var end int64 = -1
	for _, i := range ix {
		o := &h.Ops[i]
		if len(cur) > 0 && end < o.Call && len(cur) <= maxExactOps {
			if next := latchSet(endStates(h, cur, init, step, key)).norm(); len(next) > 0 && len(next) <= maxStartStates {
				cut(init, cur)
				init, cur = next, nil
			}
		}
		cur = append(cur, i)
		end = max(end, o.effectiveDeadline())
	}
	if len(cur) > 0 {
		cut(init, cur)
	}
	return out
}
