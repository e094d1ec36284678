package model

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// isPermitObject reports whether the object's ops (indices) are those of
// a semaphore with expirable permits.
func isPermitObject(h *History, ix []int) bool {
	for _, i := range ix {
		if k := h.Ops[i].Kind; k == PermitAcquire || k == PermitRelease {
			return true
		}
	}
	return false
}

// objSegment is one segment of one object, ready for porcupine.
type objSegment struct {
	name  string
	ops   []int  // indices in History.Ops
	start string // the states it starts in, for explanations
	model porcupine.Model
	pops  []porcupine.Operation
}

// objectSegments splits one object's ops into segments of its model.
func objectSegments(h *History, name string, ix []int, gran int64) []objSegment {
	var out []objSegment
	if isLatchObject(h, ix) {
		return latchSegments(h, name, ix)
	}
	if !isPermitObject(h, ix) {
		for _, seg := range semSegments(h, name, ix) {
			out = append(out, objSegment{name: name, ops: seg.ops, start: describeSemSet(seg.init),
				model: semModel(seg.init), pops: semOperations(h, seg)})
		}
		return out
	}
	for _, seg := range permitSegments(h, ix, gran) {
		start := fmt.Sprintf("one of %d states", len(seg.init))
		if len(seg.init) == 1 {
			start = fmt.Sprintf("%d permits available and %d in the lease set", seg.init[0].avail, len(seg.init[0].held))
			if !seg.init[0].set {
				start = "no permits set"
			}
		}
		out = append(out, permitObjSegment(h, name, seg, start, gran))
	}
	return out
}

func permitObjSegment(h *History, name string, seg permitSegment, start string, gran int64) objSegment {
	ops := make([]porcupine.Operation, 0, len(seg.ops))
	for _, i := range seg.ops {
		o := &h.Ops[i]
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: permitInputOf(h, i, gran), Call: o.Call, Return: o.effectiveDeadline()})
	}
	return objSegment{name: name, ops: seg.ops, start: start, model: permitModel(seg.init), pops: ops}
}

// permitSegment is a stretch of one permit semaphore's ops.
type permitSegment struct {
	init permitSet
	ops  []int
}

// permitSegments cuts one object's ops at quiet points (no op in flight)
// where the states every legal order of the stretch before ends in are
// few and were searched for (at most maxExactOps ops); the next segment
// starts in them. A stretch with no legal order is not cut.
func permitSegments(h *History, ix []int, gran int64) []permitSegment {
	cur := permitSegment{init: permitSet{{}}}
	var out []permitSegment
	var end int64 = -1
	step := func(s permitState, i int) []permitState { return permitStep(s, permitInputOf(h, i, gran)) }
	key := func(s permitState) string { return s.key() }
	for _, i := range ix {
		o := &h.Ops[i]
		if len(cur.ops) > 0 && end < o.Call && len(cur.ops) <= maxExactOps {
			if next := permitSet(endStates(h, cur.ops, cur.init, step, key)).norm(); len(next) > 0 && len(next) <= maxStartStates {
				out = append(out, cur)
				cur = permitSegment{init: next}
			}
		}
		cur.ops = append(cur.ops, i)
		end = max(end, o.effectiveDeadline())
	}
	if len(cur.ops) > 0 {
		out = append(out, cur)
	}
	return out
}
