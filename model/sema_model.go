package model

import (
	"fmt"
	"slices"

	"github.com/anishathalye/porcupine"
)

// semState is the sequential counting semaphore of Redisson's RSemaphore:
// the available permits, and whether the semaphore was set at all
// (trySetPermits succeeds only on an unset one). Nothing is owned: the
// model does not know who holds what (CheckConserved does).
type semState struct {
	Set   bool
	Avail int64
}

// semInput is one op for the model.
type semInput struct {
	op        int // index in History.Ops
	kind      Kind
	n         int64
	outcome   Outcome
	cancelled bool
}

// semStep returns the states op may lead to from s (none: illegal).
//   - acquire ok: Set and Avail >= n, then Avail -= n; fail: legal when
//     fewer than n are available (or the caller cancelled it); a refusal
//     with permits available is a violation (ClassRefusal);
//   - release, add ok: Avail += n (an unset semaphore counts as 0, and is
//     set by it, as INCRBY and SET do); fail: nothing;
//   - set ok: legal only when unset, then Avail = n; fail: only when set;
//   - info: either what ok does (where legal) or nothing.
func semStep(s semState, in semInput) []semState {
	apply := func() (semState, bool) {
		switch in.kind {
		case SemAcquire:
			if !s.Set || s.Avail < in.n {
				return s, false
			}
			return semState{Set: true, Avail: s.Avail - in.n}, true
		case SemRelease, SemAdd:
			return semState{Set: true, Avail: s.Avail + in.n}, true
		case SemSet:
			if s.Set {
				return s, false
			}
			return semState{Set: true, Avail: in.n}, true
		}
		return s, false
	}
	next, ok := apply()
	switch in.outcome {
	case OK:
		if ok {
			return []semState{next}
		}
		return nil
	case Fail:
		switch {
		case in.kind == SemSet && !s.Set:
			return nil
		case in.kind == SemAcquire && ok && !in.cancelled:
			return nil
		}
		return []semState{s}
	default: // Info
		if ok {
			return []semState{s, next}
		}
		return []semState{s}
	}
}

// semSet is a set of possible states, sorted, without duplicates: the
// model is nondeterministic (info ops), and a segment may start in any of
// several states.
type semSet []semState

func (a semSet) norm() semSet {
	slices.SortFunc(a, func(x, y semState) int {
		switch {
		case x.Set != y.Set:
			if x.Set {
				return 1
			}
			return -1
		case x.Avail < y.Avail:
			return -1
		case x.Avail > y.Avail:
			return 1
		}
		return 0
	})
	return slices.Compact(a)
}

// semModel is the porcupine model of one semaphore segment starting in
// any state of init.
func semModel(init semSet) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return init },
		Step: func(state, input, _ interface{}) (bool, interface{}) {
			var out semSet
			for _, s := range state.(semSet) {
				out = append(out, semStep(s, input.(semInput))...)
			}
			return len(out) > 0, out.norm()
		},
		Equal: func(a, b interface{}) bool { return slices.Equal(a.(semSet), b.(semSet)) },
		DescribeOperation: func(input, _ interface{}) string {
			in := input.(semInput)
			return fmt.Sprintf("%s %d -> %s", in.kind, in.n, in.outcome)
		},
	}
}

// semSegment is a stretch of one semaphore's ops that porcupine checks
// on its own, from the states init.
type semSegment struct {
	name string
	init semSet
	ops  []int // indices in History.Ops, by call time
}

// maxStartStates bounds the states a segment may start in, and
// maxExactOps the ops of a stretch with info ops whose end states are
// searched for; beyond either the stretch is not cut there.
const (
	maxStartStates = 16
	maxExactOps    = 14
)

// semSegments splits one object's ops (indices sorted by call) at quiet
// points: instants where no op is in flight. The next segment starts in
// exactly the states that the legal orders of the stretch before can end
// in: computed from the outcomes when the stretch has no info op and
// starts in one state (every legal order then ends in the same state, see
// semAdvance), else searched for (semEndStates), and not cut when that
// search is too big.
// A stretch with no legal order ends nowhere: the cut is not made there,
// and the stretch is found illegal with what follows.
func semSegments(h *History, name string, ix []int) []semSegment {
	cur := semSegment{name: name, init: semSet{{}}}
	states := semSet{{}}
	var out []semSegment
	var end int64 = -1
	info := false
	for _, i := range ix {
		o := &h.Ops[i]
		if len(cur.ops) > 0 && end < o.Call {
			next := states
			if info || len(cur.init) > 1 {
				next = nil
				if len(cur.ops) <= maxExactOps {
					next = semEndStates(h, cur)
				}
			}
			if len(next) > 0 && len(next) <= maxStartStates {
				out = append(out, cur)
				cur = semSegment{name: name, init: next}
				states, info = next, false
			}
		}
		cur.ops = append(cur.ops, i)
		end = max(end, o.effectiveDeadline())
		info = info || o.Outcome == Info
		states = semAdvance(states, semInputOf(h, i))
	}
	if len(cur.ops) > 0 {
		out = append(out, cur)
	}
	return out
}

// semEndStates searches every legal order of seg's ops (real time: an op
// goes after every op whose deadline is before its call) for the states
// they end in.
func semEndStates(h *History, seg semSegment) semSet {
	step := func(s semState, i int) []semState { return semStep(s, semInputOf(h, i)) }
	key := func(s semState) string { return fmt.Sprintf("%v/%d", s.Set, s.Avail) }
	return semSet(endStates(h, seg.ops, seg.init, step, key)).norm()
}

// endStates is the search of semEndStates for any sequential model: the
// states every legal order of ops (indices in h.Ops, at most 32) ends in
// from any state of init.
func endStates[S any](h *History, ops []int, init []S, step func(S, int) []S, key func(S) string) []S {
	n := len(ops)
	type visit struct {
		done uint32
		s    string
	}
	seen := map[visit]bool{}
	ends := map[string]S{}
	var walk func(done uint32, s S)
	walk = func(done uint32, s S) {
		k := visit{done, key(s)}
		if seen[k] {
			return
		}
		seen[k] = true
		if done == 1<<n-1 {
			ends[k.s] = s
			return
		}
		for a := range n {
			if done&(1<<a) != 0 || !semMayGoNext(h, ops, done, a) {
				continue
			}
			for _, next := range step(s, ops[a]) {
				walk(done|1<<a, next)
			}
		}
	}
	for _, s := range init {
		walk(0, s)
	}
	out := make([]S, 0, len(ends))
	for _, s := range ends {
		out = append(out, s)
	}
	return out
}

// semMayGoNext reports whether op a may be linearized before every op
// not in done: none of them is over before a is called.
func semMayGoNext(h *History, ops []int, done uint32, a int) bool {
	call := h.Ops[ops[a]].Call
	for b := range ops {
		if b != a && done&(1<<b) == 0 && h.Ops[ops[b]].effectiveDeadline() < call {
			return false
		}
	}
	return true
}

// semAdvance is semStep without the legality checks, over a set, with
// every effect a delta so that the order of the ops does not matter: in
// every legal order an ok set comes first among the effectful ops (any of
// them sets the semaphore), on an unset one (0 permits), so it adds its N.
// Every ok op leaves the semaphore set, for good; so does a failed set.
func semAdvance(states semSet, in semInput) semSet {
	delta := in.n
	if in.kind == SemAcquire {
		delta = -in.n
	}
	var out semSet
	for _, s := range states {
		next := semState{Set: true, Avail: s.Avail + delta}
		switch {
		case in.outcome == OK:
			out = append(out, next)
		case in.outcome == Fail && in.kind == SemSet:
			out = append(out, semState{Set: true, Avail: s.Avail})
		case in.outcome == Fail:
			out = append(out, s)
		default:
			out = append(out, s, next)
		}
	}
	return out.norm()
}

func semInputOf(h *History, i int) semInput {
	o := &h.Ops[i]
	return semInput{op: i, kind: o.Kind, n: o.N, outcome: o.Outcome, cancelled: o.Cancelled}
}

// semOperations turns a segment into porcupine operations: an info op may
// take effect until its deadline.
func semOperations(h *History, seg semSegment) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, len(seg.ops))
	for _, i := range seg.ops {
		o := &h.Ops[i]
		ops = append(ops, porcupine.Operation{ClientId: o.Process, Input: semInputOf(h, i),
			Call: o.Call, Return: o.effectiveDeadline()})
	}
	return ops
}
