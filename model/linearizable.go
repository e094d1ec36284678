package model

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// CheckLinearizability checks h's lock ops against the sequential reentrant,
// owner-aware mutex (see lockState), per lock name and per quiet-point
// segment, with porcupine. It is bounded by opts.Timeout: when that runs out
// before every segment is decided and none is illegal, the verdict is Unknown.
func CheckLinearizability(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckLinearizable}
	segs := segments(h, opts)
	verdicts := checkSegments(segs, start.Add(opts.timeout()))
	var illegal []int
	undecided, largest, nops := 0, 0, 0
	locks := map[string]bool{}
	for i, v := range verdicts {
		locks[segs[i].lock] = true
		largest = max(largest, len(segs[i].ops))
		for _, op := range segs[i].ops {
			if op.Input.(*stepInput).src >= 0 {
				nops++
			}
		}
		switch v {
		case porcupine.Illegal:
			illegal = append(illegal, i)
		case porcupine.Unknown:
			undecided++
		}
	}
	shape := fmt.Sprintf("%d lock ops on %d locks in %d segments (largest %d)", nops, len(locks), len(segs), largest)
	switch {
	case len(illegal) > 0:
		res.Verdict = Invalid
		res.Count = len(illegal)
		res.Explanation = fmt.Sprintf("not linearizable: %d of %d segments admit no sequential order of a reentrant owner-aware mutex; %s", len(illegal), len(segs), shape)
		for _, i := range illegal[:min(len(illegal), opts.maxExamples())] {
			res.Examples = append(res.Examples, explainSegment(h, segs[i], opts))
		}
	case undecided > 0:
		res.Verdict = Unknown
		res.Count = undecided
		res.Explanation = fmt.Sprintf("undecided: %d of %d segments not decided within %s; %s", undecided, len(segs), opts.timeout(), shape)
	default:
		res.Verdict = Valid
		res.Explanation = "linearizable: " + shape
	}
	res.Elapsed = time.Since(start)
	return res
}

// checkSegments checks every segment on GOMAXPROCS workers, largest first,
// until deadline; segments not decided by then are Unknown.
func checkSegments(segs []segment, deadline time.Time) []porcupine.CheckResult {
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return len(segs[order[a]].ops) > len(segs[order[b]].ops) })
	out := make([]porcupine.CheckResult, len(segs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(segs)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(order) {
					return
				}
				i := order[k]
				left := time.Until(deadline)
				if left <= 0 {
					out[i] = porcupine.Unknown
					continue
				}
				out[i] = porcupine.CheckOperationsTimeout(mutexModel, segs[i].ops, left)
			}
		})
	}
	wg.Wait()
	return out
}

// explainSegment finds, in an illegal segment, the op that no sequential
// order can accommodate, the ops it conflicts with and why.
// Only the ops the contradiction needs are considered (minimalConflict);
// the example names all of them.
func explainSegment(h *History, seg segment, opts Options) Example {
	ex := Example{Lock: seg.lock}
	seg.ops = minimalConflict(seg.ops, min(opts.timeout(), 10*time.Second))
	_, info := porcupine.CheckOperationsVerbose(mutexModel, seg.ops, min(opts.timeout(), 10*time.Second))
	var longest []porcupine.Operation
	for _, part := range info.PartialLinearizationsOperations() {
		for _, l := range part {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	// Replay the longest prefix, remembering who made the state what it is.
	done := map[*stepInput]bool{}
	var s lockState
	var grant, freed *stepInput // op that granted the current owner's first hold; op that last freed the lock
	for _, op := range longest {
		in := op.Input.(*stepInput)
		done[in] = true
		_, next, _ := step(s, in)
		if next.Held && (!s.Held || s.Owner != next.Owner) {
			grant = in
		}
		if !next.Held && s.Held {
			freed = in
		}
		s = next
	}
	// The stuck op: not linearized, earliest return.
	var stuck *stepInput
	var stuckRet int64
	for _, op := range seg.ops {
		in := op.Input.(*stepInput)
		if !done[in] && (stuck == nil || op.Return < stuckRet) {
			stuck, stuckRet = in, op.Return
		}
	}
	if stuck == nil || stuck.op == nil {
		ex.Summary = "no sequential order explains these outcomes"
		return ex
	}
	ok, _, r := step(s, stuck)
	summary := why(r, s, stuck)
	if ok {
		summary = fmt.Sprintf("no sequential order explains %v (after %d ops the lock was %s)", *stuck.op, len(longest), describeState(s))
	}
	ex.Summary = summary
	var first *Op
	switch {
	case s.Held && grant != nil && grant.op != nil:
		first = grant.op
	case s.Held:
		first = lastGrant(h, seg.lock, s.Owner, stuck.call)
	}
	ex.Ops = neededOps(seg, first, freed, stuck)
	ex.Faults = overlapping(h, ex.Ops)
	horizon := h.horizon()
	switch {
	case first != nil && r == grantedWhileHeld:
		var e holdEnd
		var earlier, later *Op
		earlier, later, e, ex.Cause = grantCause(first, stuck.op, ex.Faults, horizon, opts)
		ex.LeaseCouldExpire, ex.HoldCouldBeLost = e.lease, e.lost != nil
		if earlier != first {
			ex.Summary = why(r, lockState{Held: true, Owner: earlier.Process}, &stepInput{process: later.Process})
		}
	case first != nil && stuck.kind == Acquire:
		e := holdCouldEnd(first, stuck.op, ex.Faults, horizon, opts)
		ex.Cause, ex.LeaseCouldExpire, ex.HoldCouldBeLost = e.verdict(), e.lease, e.lost != nil
	}
	return ex
}

// neededOps lists, earliest call first, the ops of the conflict: the op
// that made the state the stuck op met (first, the grant of the holder, or
// freed, the release that freed the lock), the stuck op, and every recorded
// op of the (minimal) segment that overlaps the time between them.
func neededOps(seg segment, first *Op, freed, stuck *stepInput) []Op {
	var out []Op
	seen := map[*Op]bool{}
	add := func(o *Op) {
		if o != nil && !seen[o] {
			seen[o] = true
			out = append(out, *o)
		}
	}
	lo, hi := stuck.call, stuck.deadline
	switch {
	case first != nil:
		lo = min(lo, first.Call)
		add(first)
	case freed != nil && freed.op != nil:
		lo = min(lo, freed.call)
		add(freed.op)
	}
	add(stuck.op)
	for _, op := range seg.ops {
		if in := op.Input.(*stepInput); in.op != nil && in.call <= hi && in.deadline >= lo {
			add(in.op)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Call < out[b].Call })
	return out
}

// lastGrant finds the ok acquire that gave p its current holds on lock
// (the one that took p's count from 0) before time t.
func lastGrant(h *History, lock string, p int, t int64) *Op {
	var mine []*Op
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Process == p && o.Lock == lock && o.Call < t && o.Outcome == OK && (o.Kind == Acquire || o.Kind == Release) {
			mine = append(mine, o)
		}
	}
	sort.Slice(mine, func(a, b int) bool { return mine[a].Call < mine[b].Call })
	var grant *Op
	bal := 0
	for _, o := range mine {
		if o.Kind == Acquire {
			if bal == 0 {
				grant = o
			}
			bal++
		} else if bal > 0 {
			bal--
		}
	}
	return grant
}

// overlapping returns the fault windows that overlap the span of ops.
func overlapping(h *History, ops []Op) []Fault {
	if len(ops) == 0 {
		return nil
	}
	lo, hi := ops[0].Call, ops[0].Return
	for _, o := range ops {
		lo, hi = min(lo, o.Call), max(hi, o.effectiveDeadline())
	}
	horizon := h.horizon()
	var out []Fault
	for _, f := range h.Faults {
		if f.Start <= hi && f.end(horizon) >= lo {
			out = append(out, f)
		}
	}
	return out
}
