package model

import (
	"context"
	"fmt"
	"time"

	"github.com/anishathalye/porcupine"
)

// runPermitCheckers runs the checkers of a semaphore history in turn
// until ctx ends; those it did not reach are Unknown. The ones that need
// no search run first, so that a search that runs out of time (many info
// ops under faults) leaves their verdicts standing; the results keep the
// usual order, linearizability first.
func runPermitCheckers(ctx context.Context, h *History, opts Options) []Result {
	checkers := []struct {
		name string
		run  func() Result
	}{
		{CheckConserved, func() Result { return CheckPermitsConserved(h, opts) }},
		{CheckLiveness, func() Result { return CheckPermitsLive(h, opts) }},
		{CheckContract, func() Result { return CheckPermitsContract(h, opts) }},
		{CheckLinearizable, func() Result { return checkSemLinearizable(ctx, h, opts) }},
	}
	var out []Result
	for _, c := range checkers {
		if ctx.Err() != nil {
			out = append(out, stoppedResult(c.name, stopReason(ctx, opts)))
			continue
		}
		out = append(out, c.run())
	}
	lin := len(out) - 1 // the search's result, run last, reported first
	return append([]Result{out[lin]}, out[:lin]...)
}

// CheckSemLinearizable checks h's semaphore ops against the sequential
// counting semaphore (semState), per object and per quiet-point segment,
// with porcupine, bounded by opts.Timeout.
func CheckSemLinearizable(h *History, opts Options) Result {
	ctx, cancel := withTimeout(context.Background(), opts)
	defer cancel()
	return checkSemLinearizable(ctx, h, opts)
}

func checkSemLinearizable(ctx context.Context, h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckLinearizable}
	names, by, forgotten := judgedObjects(h, opts)
	nsegs, illegal, undecided := 0, 0, 0
	for _, name := range names {
		for _, seg := range objectSegments(h, name, by[name], opts.permitGranularity()) {
			nsegs++
			switch checkObjSegment(ctx, seg, opts) {
			case porcupine.Illegal:
				illegal++
				if len(res.Examples) < opts.maxExamples() {
					res.Examples = append(res.Examples, semExample(h, seg))
				}
			case porcupine.Unknown:
				undecided++
			}
		}
	}
	shape := fmt.Sprintf("%d objects in %d segments", len(names), nsegs) + forgottenNote(forgotten)
	switch {
	case illegal > 0:
		res.Verdict, res.Count = Invalid, illegal
		res.Explanation = fmt.Sprintf("not linearizable: %d of %d segments admit no sequential order of their semaphore; %s", illegal, nsegs, shape)
	case undecided > 0:
		res.Verdict, res.Count = Unknown, undecided
		res.Explanation = fmt.Sprintf("undecided: %d of %d segments not decided within %s; %s", undecided, nsegs, opts.timeout(), shape)
	default:
		res.Verdict = Valid
		res.Explanation = "linearizable: " + shape
	}
	res.Elapsed = time.Since(start)
	return res
}

// checkObjSegment runs porcupine on one segment until ctx ends.
func checkObjSegment(ctx context.Context, seg objSegment, opts Options) porcupine.CheckResult {
	left := opts.timeout()
	if d, ok := ctx.Deadline(); ok {
		left = time.Until(d)
	}
	if left <= 0 {
		return porcupine.Unknown
	}
	return porcupine.CheckOperationsTimeout(seg.model, seg.pops, left)
}

// semExample explains an illegal segment: its ops and where it started.
func semExample(h *History, seg objSegment) Example {
	e := Example{Lock: seg.name, Class: ClassSafety, Shape: ShapeUnexplained}
	refusal := true
	for _, i := range seg.ops {
		o := h.Ops[i]
		e.Ops = append(e.Ops, o)
		if (o.Kind == SemAcquire || o.Kind == PermitAcquire || o.Kind == PermitRelease) && o.Outcome == OK {
			refusal = false
		}
	}
	e.Summary = fmt.Sprintf("no order of these %d ops fits the semaphore, which starts with %s", len(seg.ops), seg.start)
	if refusal {
		e.Class, e.Shape = ClassRefusal, ShapeRefusedFree
		e.Summary += " (refusals with permits available)"
	}
	e.Faults = faultsOverlapping(h, e.Ops)
	return e
}

func describeSemSet(states semSet) string {
	if len(states) == 1 {
		if !states[0].Set {
			return "no permits set"
		}
		return fmt.Sprintf("%d permits available", states[0].Avail)
	}
	return fmt.Sprintf("one of %d states", len(states))
}

// faultsOverlapping returns h's fault windows that overlap any of ops.
func faultsOverlapping(h *History, ops []Op) []Fault {
	if len(ops) == 0 {
		return nil
	}
	lo, hi := ops[0].Call, ops[0].effectiveDeadline()
	for _, o := range ops {
		lo, hi = min(lo, o.Call), max(hi, o.effectiveDeadline())
	}
	var out []Fault
	horizon := h.horizon()
	for _, f := range h.Faults {
		if f.Start <= hi && f.end(horizon) >= lo {
			out = append(out, f)
		}
	}
	return out
}
