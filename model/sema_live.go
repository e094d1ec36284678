package model

import (
	"fmt"
	"slices"
	"time"
)

// DefaultPermitWait bounds a semaphore waiter's stretch on available
// permits when Options.FreeWait is 0: a wake-up is a message away, and the
// Go port polls at its watchdog timeout only when one is lost.
const DefaultPermitWait = time.Second

// CheckPermitsLive checks that no waiting SemAcquire sat longer than the
// bound (Options.FreeWait, else DefaultPermitWait) in one stretch on
// permits that were surely available: at least its N in every order of
// the other ops (the fewest the total can have been, less the most the
// others can have held, in-flight acquires included), with no fault window
// open. A cancelled acquire is not judged. On a latch, an await is judged
// on its stretch after the latch was surely open (latchOpenedBy).
func CheckPermitsLive(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckLiveness}
	bound := opts.FreeWait
	if bound <= 0 {
		bound = DefaultPermitWait
	}
	names, by, forgotten := judgedObjects(h, opts)
	waits := 0
	for _, name := range names {
		if isLatchObject(h, by[name]) {
			waits += latchLive(h, name, by[name], int64(bound), opts, &res)
			continue
		}
		total, held := semMinTotal(h, by[name]), semMaybeHeld(h, by[name])
		if isPermitObject(h, by[name]) {
			held = permitMaybeHeld(h, by[name], opts.permitGranularity())
		}
		for _, i := range by[name] {
			w := &h.Ops[i]
			if !isGrantKind(w.Kind) || w.Cancelled || w.Outcome == Info || (!w.Blocking && w.Wait <= 0) {
				continue
			}
			waits++
			own := int64(0)
			if w.Outcome == OK {
				own = permitsOf(w)
			}
			a, b, long := longestAvailable(h, total, held, w, own)
			if long <= int64(bound) {
				continue
			}
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				e := Example{Lock: name, Class: ClassLiveness, Shape: ShapeWaitOnFree, Ops: []Op{*w},
					Summary: fmt.Sprintf("waited %s for %d permits that were available from %s to %s (bound %s)",
						fmtDur(long), permitsOf(w), fmtTime(a), fmtTime(b), bound)}
				waitEvidence(&e, h, opts.Wire, *w, a, b)
				res.Examples = append(res.Examples, e)
			}
		}
	}
	if res.Count > 0 {
		res.Verdict = Invalid
		res.Explanation = fmt.Sprintf("%d of %d waits sat on available permits longer than %s", res.Count, waits, bound) + forgottenNote(forgotten)
	} else {
		res.Verdict = Valid
		res.Explanation = fmt.Sprintf("%d waits, none on available permits longer than %s", waits, bound) + forgottenNote(forgotten)
	}
	res.Elapsed = time.Since(start)
	return res
}

// longestAvailable is w's longest stretch [a, b] within its call with at
// least w.N permits surely available to it, outside the windows of the
// faults that hit its process.
func longestAvailable(h *History, total, held steps, w *Op, own int64) (a, b, long int64) {
	pts := append([]int64{w.Call}, total.breaks(w.Call, w.Return)...)
	pts = append(pts, held.breaks(w.Call, w.Return)...)
	horizon := h.horizon()
	for _, f := range h.Faults {
		for _, t := range []int64{f.Start, f.end(horizon)} {
			if t > w.Call && t < w.Return {
				pts = append(pts, t)
			}
		}
	}
	pts = append(pts, w.Return)
	slices.Sort(pts)
	var from int64 = -1
	for k := 0; k+1 < len(pts); k++ {
		t, next := pts[k], pts[k+1]
		if t == next {
			continue
		}
		ok := total.at(t)-(held.at(t)-own) >= permitsOf(w) && !inFault(h, w.Process, t, next, horizon)
		switch {
		case ok && from < 0:
			from = t
		case !ok && from >= 0:
			if t-from > long {
				a, b, long = from, t, t-from
			}
			from = -1
		}
	}
	if from >= 0 && w.Return-from > long {
		a, b, long = from, w.Return, w.Return-from
	}
	return a, b, long
}

// inFault reports whether the window of a fault that hit process p
// (Fault.Procs; every process for a server-side fault) overlaps [t, next):
// a fault elsewhere (another client's link, another worker's stall) delays
// no wake-up of p's, and whatever it does to the permits the held and
// total steps already allow for.
func inFault(h *History, p int, t, next, horizon int64) bool {
	for _, f := range h.Faults {
		if f.hits(p) && f.Start < next && f.end(horizon) > t {
			return true
		}
	}
	return false
}
