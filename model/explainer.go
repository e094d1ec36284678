package model

import (
	"sort"
)

// explainer answers the questions every explanation asks (which grant
// gave a process its hold, which fault windows overlap some ops) from
// indexes built once per check, so that explaining k violations of an
// n-op history costs O(n log n + k·(log n + faults)), not O(k·n).
type explainer struct {
	h       *History
	opts    Options
	horizon int64
	grants  map[lockProc][]grantStep // built on first use
}

type lockProc struct {
	lock string
	p    int
}

// grantStep is one ok acquire, release or expire of a process on a lock,
// with the acquire that started the process's hold as it stood after it.
type grantStep struct {
	call  int64
	grant *Op
}

func newExplainer(h *History, opts Options) *explainer {
	return &explainer{h: h, opts: opts, horizon: h.horizon()}
}

// holdOp reports whether o changes its process's hold count.
func holdOp(o *Op) bool {
	return o.Outcome == OK && (o.Kind == Acquire || o.Kind == Release || o.Kind == Expire)
}

// grantSteps sorts ops (one process's hold ops on one lock) by call and
// replays its hold count: step i's grant is the acquire that took the
// count from 0 last, among ops[:i+1].
func grantSteps(ops []*Op) []grantStep {
	sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	steps := make([]grantStep, len(ops))
	var grant *Op
	bal := 0
	for i, o := range ops {
		switch {
		case o.Kind == Acquire:
			if bal == 0 {
				grant = o
			}
			bal++
		case o.Kind == Expire:
			bal = 0
		case bal > 0:
			bal--
		}
		steps[i] = grantStep{call: o.Call, grant: grant}
	}
	return steps
}

// grantBefore returns the grant of the last step called before t.
func grantBefore(steps []grantStep, t int64) *Op {
	i := sort.Search(len(steps), func(i int) bool { return steps[i].call >= t })
	if i == 0 {
		return nil
	}
	return steps[i-1].grant
}

// lastGrant finds the ok acquire that gave p its current holds on lock
// (the one that took p's count from 0) before time t.
func (x *explainer) lastGrant(lock string, p int, t int64) *Op {
	if x.grants == nil {
		by := map[lockProc][]*Op{}
		for i := range x.h.Ops {
			if o := &x.h.Ops[i]; holdOp(o) {
				k := lockProc{o.Lock, o.Process}
				by[k] = append(by[k], o)
			}
		}
		x.grants = make(map[lockProc][]grantStep, len(by))
		for k, ops := range by {
			x.grants[k] = grantSteps(ops)
		}
	}
	return grantBefore(x.grants[lockProc{lock, p}], t)
}

// lastGrant is explainer.lastGrant without an index, for one question.
func lastGrant(h *History, lock string, p int, t int64) *Op {
	var mine []*Op
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Process == p && o.Lock == lock && holdOp(o) {
			mine = append(mine, o)
		}
	}
	return grantBefore(grantSteps(mine), t)
}

// faults returns the fault windows that overlap the span of ops.
func (x *explainer) faults(ops []Op) []Fault {
	return overlappingUntil(x.h, ops, x.horizon)
}

// overlapping returns the fault windows that overlap the span of ops.
func overlapping(h *History, ops []Op) []Fault {
	if len(ops) == 0 {
		return nil
	}
	return overlappingUntil(h, ops, h.horizon())
}

// overlappingUntil is overlapping with open windows ending at horizon.
func overlappingUntil(h *History, ops []Op, horizon int64) []Fault {
	if len(ops) == 0 {
		return nil
	}
	lo, hi := opsSpan(ops)
	var out []Fault
	for _, f := range h.Faults {
		if f.Start <= hi && f.end(horizon) >= lo {
			out = append(out, f)
		}
	}
	return out
}

// opsSpan is the span of ops (at least one): the earliest call to the
// latest time one may take effect.
func opsSpan(ops []Op) (lo, hi int64) {
	lo, hi = ops[0].Call, ops[0].Return
	for _, o := range ops {
		lo, hi = min(lo, o.Call), max(hi, o.effectiveDeadline())
	}
	return lo, hi
}
