package model

import (
	"context"
	"fmt"
	"sort"

	"github.com/anishathalye/porcupine"
)

// refusalIn returns the op of an illegal segment without which the segment
// is linearizable, or nil when there is none: a failed op, or an ok release
// (after its process's Expire: a late unlock; or by a process that held
// nothing). Such a contradiction involves no two holders: the lock said
// "no" where every order has no one else holding it (a refusal), or said
// "released" of a hold that no longer or never existed and freed nothing
// anyone noticed (a contract problem; Redisson's fair lock answers so by
// design whenever its key is gone). ops is best a minimal conflict, whose
// few failed ops are each needed; late is the history's late unlocks
// (lateUnlocks). When ops are a window of a segment (narrowConflict),
// whole is the segment: an op is named only when setting it aside makes
// the whole segment linearizable too, as if ops were the segment (nil:
// ops are the segment).
func refusalIn(ctx context.Context, m porcupine.Model, late emptyUnlocks, ops, whole []porcupine.Operation) *stepInput {
	if in := lateUnlocksExplain(ctx, m, late, ops, whole); in != nil {
		return in
	}
	// Failed ops first: where a refusal and an ok release each explain the
	// segment alone, the refusal is named.
	failed := func(in *stepInput) bool { return in.outcome == Fail }
	released := func(in *stepInput) bool { return in.kind == Release && in.outcome == OK }
	for _, candidate := range []func(*stepInput) bool{failed, released} {
		if in := soleExplanation(ctx, m, ops, whole, candidate); in != nil {
			return in
		}
	}
	return nil
}

// soleExplanation returns the first op of ops that candidate accepts and
// without which ops (and whole, unless nil) are linearizable, or nil.
func soleExplanation(ctx context.Context, m porcupine.Model, ops, whole []porcupine.Operation, candidate func(*stepInput) bool) *stepInput {
	for i, op := range ops {
		in := op.Input.(*stepInput)
		if in.op == nil || !candidate(in) {
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		rest := append(append([]porcupine.Operation(nil), ops[:i]...), ops[i+1:]...)
		if linearizable(m, rest) && legalWithout(ctx, m, whole, func(x *stepInput) bool { return x == in }) {
			return in
		}
	}
	return nil
}

// legalWithout reports whether ops (nil: none, trivially) are
// linearizable with the ops drop accepts set aside, and ctx has not ended.
func legalWithout(ctx context.Context, m porcupine.Model, ops []porcupine.Operation, drop func(*stepInput) bool) bool {
	if ops == nil || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	rest := make([]porcupine.Operation, 0, len(ops))
	for _, op := range ops {
		if !drop(op.Input.(*stepInput)) {
			rest = append(rest, op)
		}
	}
	return linearizable(m, rest) && ctx.Err() == nil
}

// explainRefusal relabels ex, the explanation of a segment whose
// contradiction is the refusal refused: a refusal, whatever op the
// explanation got stuck on, with the refused op among its ops.
//
// A release refused during a lossy fault window is not relabelled: the
// server forgot the hold (ClassSafety), and its holder went on believing
// it held the lock.
func explainRefusal(h *History, seg segment, refused *stepInput, ex Example, opts Options, late emptyUnlocks) Example {
	p := refused.process
	if refused.kind == Release && refused.outcome == OK {
		ex.Class, ex.Shape, ex.LeaseCouldExpire, ex.HoldCouldBeLost = ClassContract, ShapeUnlockAfterLapse, false, false
		what := "a hold its lease had already ended"
		ex.Summary = fmt.Sprintf("p%d's unlock after its lease ran out answered ok", p)
		if late[refused.op] != unlockLate {
			what, ex.Shape = "a hold it did not have", ShapeUnlockNotHeld
			ex.Summary = fmt.Sprintf("p%d's unlock of a lock it did not hold answered ok", p)
		}
		ex.Cause = fmt.Sprintf("with that answer set aside every other outcome has a sequential order, so no two holders are involved: "+
			"the lock said p%d released %s (nothing of anyone else's was freed), a contract problem, not a safety one", p, what)
		if !containsOp(ex.Ops, refused.op) {
			ex.Ops = neededOps(seg, nil, nil, refused)
			ex.Faults = overlapping(h, ex.Ops)
		}
		return ex
	}
	if refused.kind == Release {
		if f := lossyDuring(h, ex.Ops, refused.op, opts); f != nil {
			ex.Class, ex.Shape, ex.HoldCouldBeLost = ClassSafety, ShapeHoldLost, true
			ex.Summary = fmt.Sprintf("p%d was told it was not the owner while it held the lock: its hold was lost", p)
			ex.Cause = fmt.Sprintf("the server forgot p%d's hold during %s (a lossy fault); its holder went on believing it held the lock, expected under that fault", p, f)
			return ex
		}
	}
	if ex.Class == ClassSafety { // the explanation blamed two holders
		ex.Summary = fmt.Sprintf("p%d failed to acquire a free lock (refused while no one held it)", p)
		if refused.kind == Release {
			ex.Summary = fmt.Sprintf("p%d was told it was not the owner while it held the lock", p)
		}
	}
	ex.Class, ex.Shape, ex.LeaseCouldExpire, ex.HoldCouldBeLost = ClassRefusal, refusedShape(refused, ex.Shape), false, false
	ex.Cause = fmt.Sprintf("with p%d's %s %s set aside, every other outcome has a sequential order and no two holders are involved: "+
		"a contract or progress problem of the lock or its adapter, not a safety one", p, refused.kind, refused.outcome)
	if !containsOp(ex.Ops, refused.op) {
		ex.Ops = neededOps(seg, nil, nil, refused)
		ex.Faults = overlapping(h, ex.Ops)
	}
	return ex
}

// refusedShape is the shape of a refusal whose sole explanation is the
// refused op: a holder told it held nothing, a holder's re-entry refused
// (the model's own shape, was), or an acquire refused on a free lock.
func refusedShape(refused *stepInput, was Shape) Shape {
	switch {
	case refused.kind == Release:
		return ShapeOwnerRefused
	case was == ShapeReentryRefused:
		return was
	}
	return ShapeRefusedFree
}

func containsOp(ops []Op, o *Op) bool {
	for i := range ops {
		if ops[i] == *o {
			return true
		}
	}
	return false
}

// lossyDuring returns a lossy fault window open between the earliest of
// ops (the conflict, the holder's grant among them) and the release o's
// return, or nil.
func lossyDuring(h *History, ops []Op, o *Op, opts Options) *Fault {
	lo := o.Call
	for _, op := range ops {
		lo = min(lo, op.Call)
	}
	horizon := h.horizon()
	for i := range h.Faults {
		if f := &h.Faults[i]; opts.lossy(f.Name) && f.Start <= o.Return && f.end(horizon) >= lo {
			return f
		}
	}
	return nil
}

// lateUnlocksExplain returns the first ok empty unlock of ops (of whole,
// unless nil) when setting all of them aside makes ops (and whole)
// linearizable: a lock that answers every late unlock with "released" (as
// Redisson's fair lock does), or every unlock of nothing (as Redisson's
// RedLock does), breaks the contract once per such answer, and only all of
// them together explain it.
func lateUnlocksExplain(ctx context.Context, m porcupine.Model, empty emptyUnlocks, ops, whole []porcupine.Operation) *stepInput {
	isEmpty := func(in *stepInput) bool { _, ok := empty[in.op]; return in.op != nil && ok }
	var first *stepInput
	var rest []porcupine.Operation
	for _, op := range ops {
		if in := op.Input.(*stepInput); isEmpty(in) {
			if first == nil {
				first = in
			}
			continue
		}
		rest = append(rest, op)
	}
	if first == nil || ctx.Err() != nil {
		return nil
	}
	if !linearizable(m, rest) || !legalWithout(ctx, m, whole, isEmpty) {
		return nil
	}
	for _, op := range whole { // the segment's first, as when ops are the segment
		if in := op.Input.(*stepInput); isEmpty(in) {
			return in
		}
	}
	return first
}

// emptyUnlocks are the releases answered ok that, by their own process's
// record, freed nothing: late (the first release after an Expire, with no
// acquire or release between) or unheld (of a plain lock, its process
// holding nothing by its own ok acquires and releases, none of whose
// acquires is of unknown outcome). Only the lock's answer says otherwise.
type emptyUnlocks map[*Op]emptyUnlock

// emptyUnlock is why an unlock freed nothing.
type emptyUnlock uint8

const (
	unlockLate emptyUnlock = iota + 1
	unlockUnheld
)

// lateUnlocks returns h's empty unlocks (emptyUnlocks).
func lateUnlocks(h *History) emptyUnlocks { return lateUnlocksOf(h, nil) }

// lateUnlocksOf is lateUnlocks of the locks in only (nil: every lock): an
// empty unlock depends only on its own lock's ops.
func lateUnlocksOf(h *History, only map[string]bool) emptyUnlocks {
	var ops []*Op
	if only == nil {
		ops = make([]*Op, 0, len(h.Ops))
	}
	for i := range h.Ops {
		if k := h.Ops[i].Kind; (k == Expire || k == Acquire || k == Release) && (only == nil || only[h.Ops[i].Lock]) {
			ops = append(ops, &h.Ops[i])
		}
	}
	sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	holds := map[ownKey]*ownHolds{}
	empty := emptyUnlocks{}
	for _, o := range ops {
		k := ownKey{o.Process, o.Lock}
		own := holds[k]
		if own == nil {
			own = &ownHolds{}
			holds[k] = own
		}
		if why := own.apply(o); why != 0 {
			empty[o] = why
		}
	}
	return empty
}

// ownKey is one process's view of one lock.
type ownKey struct {
	p    int
	lock string
}

// ownHolds is what a process's own ops on a lock say it holds.
type ownHolds struct {
	count   int
	expired bool // an Expire with no acquire or release of the process since
	unsure  bool // an acquire of unknown outcome, or a refused release of a hold: the count is not known
}

// apply takes o, the process's next op on the lock, and says why o is an
// empty unlock (0: it is not one).
func (h *ownHolds) apply(o *Op) emptyUnlock {
	defer func() {
		if o.Kind != Expire {
			h.expired = false
		}
	}()
	switch {
	case o.Kind == Expire:
		h.expired, h.count = true, 0
	case o.Kind == Acquire && o.Outcome == OK:
		h.count++
	case o.Kind == Acquire && o.Outcome == Info:
		h.unsure = true
	case o.Kind == Release && o.Outcome == OK && h.expired:
		return unlockLate
	case o.Kind == Release && o.Outcome == OK && h.count == 0 && !h.unsure && o.Mode == "":
		return unlockUnheld
	case o.Kind == Release && o.Outcome == OK:
		h.count = max(h.count-1, 0)
	case o.Kind == Release && h.count > 0:
		h.unsure = true
	}
	return 0
}
