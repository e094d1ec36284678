package hunt

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
)

// Shrinking bounds: a find is shrunk for at most MaxShrink (and never past
// the budget), and a candidate counts as failing when most of ShrinkTries
// runs of it are finds (ShrinkVerdict). Runs are not deterministic (the
// machine chooses the interleaving), and a candidate kept on one lucky run
// of several makes a shrunk draw that its replays seldom fail.
const (
	MaxShrink   = 3 * time.Minute
	ShrinkTries = 3
)

// ShrinkVerdict says what a shrink candidate's runs so far decide, failed
// of them finds of the failure and passed not: done once most of
// ShrinkTries failed (keep) or too many passed for most to fail (not
// keep).
func ShrinkVerdict(failed, passed int) (keep, done bool) {
	switch {
	case 2*failed > ShrinkTries:
		return true, true
	case 2*passed >= ShrinkTries:
		return false, true
	}
	return false, false
}

// shrinkStep is one simplification of a failing draw, tried while it keeps
// the draw failing. apply returns the simpler draw, or false when the step
// changes nothing (already as simple, or not a field of this kind of
// draw). A step never turns the protected counter off: it is what makes
// overlapping critical sections visible.
type shrinkStep struct {
	name  string
	apply func(d Draw) (Draw, bool)
	// describe, if set, names one application from its before and after
	// (the log says "duration 2.5s -> 2s", not a name that fits only some).
	describe func(from, to Draw) string
}

// label names one application of st, from one draw to the next.
func (st shrinkStep) label(from, to Draw) string {
	if st.describe != nil {
		return st.describe(from, to)
	}
	return st.name
}

// shrinkSteps are tried in order, each repeated while it still fails, and
// the whole list again until a pass keeps nothing. To shrink a new plan
// field, add a planStep (or phaseStep) here.
var shrinkSteps = []shrinkStep{
	{name: "shorten the duration", apply: func(d Draw) (Draw, bool) {
		if d.Duration <= MinRun {
			return d, false
		}
		d.Duration = max(d.Duration/2, MinRun).Truncate(100 * time.Millisecond)
		return d, true
	}, describe: func(from, to Draw) string {
		return fmt.Sprintf("shorten the duration %v -> %v", from.Duration, to.Duration)
	}},
	{name: "fewer processes", apply: planStep(func(p *workloads.Plan) bool {
		if p.Processes <= 2 {
			return false
		}
		p.Processes = max(p.Processes/2, 2)
		return true
	}), describe: func(from, to Draw) string {
		return fmt.Sprintf("fewer processes %d -> %d", from.Plan.Processes, to.Plan.Processes)
	}},
	{name: "fewer locks", apply: planStep(func(p *workloads.Plan) bool {
		if len(p.Locks) <= 1 {
			return false
		}
		p.Locks = p.Locks[:len(p.Locks)/2]
		return true
	}), describe: func(from, to Draw) string {
		return fmt.Sprintf("fewer locks %d -> %d", len(from.Plan.Locks), len(to.Plan.Locks))
	}},
	{name: "try_lock_percent 0", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.TryLockPercent) })},
	{name: "max_reentry 0", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.MaxReentry) })},
	{name: "no phases", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.Phases) })},
	{name: "no long holds", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.LongHold) })},
	{name: "no outages", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.Outage) })},
	{name: "no overruns", apply: phaseStep(func(ph *workloads.Phases) bool {
		lease, overrun := zero(&ph.OverrunLease), zero(&ph.Overrun)
		return lease || overrun
	})},
	{name: "siblings churn", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.SiblingsWait) })},
	{name: "overruns first", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.LongHoldFirst) })},
	{name: "no storms", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.Storm) })},
	{name: "no quiet phases", apply: phaseStep(func(ph *workloads.Phases) bool { return zero(&ph.Quiet) })},
	{name: "cancel_percent 0", apply: planStep(func(p *workloads.Plan) bool {
		cancels, atReply := zero(&p.CancelPercent), zero(&p.CancelAtReplyPercent) // no cancels: none at a reply either
		return cancels || atReply
	})},
	{name: "cancel_at_reply_percent 0", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.CancelAtReplyPercent) })},
	{name: "a new lock object per request", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.SharedObjects) })},
	{name: "the default call forms", apply: planStep(func(p *workloads.Plan) bool { return zero(&p.CallForms) })},
}

// zero sets *v to its zero value and reports whether that changed it.
func zero[T comparable](v *T) bool {
	var z T
	was := *v
	*v = z
	return was != z
}

// planStep is a step that edits the plan of a plain run (a scenario fixes
// its plan: the step does not apply). edit reports whether it changed p.
func planStep(edit func(p *workloads.Plan) bool) func(Draw) (Draw, bool) {
	return func(d Draw) (Draw, bool) {
		if d.Scenario != nil {
			return d, false
		}
		p := d.Plan
		p.Locks = slices.Clone(p.Locks)
		if !edit(&p) {
			return d, false
		}
		d.Plan = p
		return d, true
	}
}

// phaseStep is a planStep on the plan's phases (a copy: the phases of the
// draw it came from stay as they were); it does not apply without phases.
func phaseStep(edit func(ph *workloads.Phases) bool) func(Draw) (Draw, bool) {
	return planStep(func(p *workloads.Plan) bool {
		if p.Phases == nil {
			return false
		}
		ph := *p.Phases
		p.Phases = &ph
		return edit(&ph)
	})
}

// shrink simplifies a find with the steps while the budget (at most
// MaxShrink of it) and ctx last. It returns the simplest draw that still
// failed, as the run that showed it, the names of the steps kept, and
// whether no step is left to try (false: time or ctx ran out first). The
// result is never less failing than found: a candidate is kept only when
// most of its runs were finds of the same failure (Config.Same,
// ShrinkVerdict).
func (h *hunter) shrink(ctx context.Context, found Trial) (Trial, []string, bool) {
	deadline := h.cfg.now().Add(MaxShrink)
	if h.deadline.Before(deadline) {
		deadline = h.deadline
	}
	best, kept := found, []string(nil)
	for progress := true; progress; {
		progress = false
		for _, st := range shrinkSteps {
			for {
				cand, ok := st.apply(best.Draw)
				if !ok || h.exec.Check(cand) != nil {
					break
				}
				label := st.label(best.Draw, cand)
				t, verdict := h.tryCandidate(ctx, label, found, cand, deadline)
				if verdict == outOfTime {
					return best, kept, false
				}
				if verdict == passes {
					break
				}
				best, progress, kept = t, true, append(kept, label)
			}
		}
	}
	return best, kept, true
}

// candidateVerdict is what the runs of a shrink candidate showed.
type candidateVerdict int

const (
	stillFails candidateVerdict = iota
	passes
	outOfTime // no room left, ctx ended, or a run could not be made
)

// tryCandidate runs cand until ShrinkVerdict decides, at most ShrinkTries
// times; a kept candidate's trial is its first find of first's failure.
func (h *hunter) tryCandidate(ctx context.Context, step string, first Trial, cand Draw, deadline time.Time) (Trial, candidateVerdict) {
	var found Trial
	failed, passed := 0, 0
	for {
		if ctx.Err() != nil || h.left(deadline) < cand.Duration {
			return Trial{}, outOfTime
		}
		h.shrinkRuns++
		t, err := h.run1(ctx, "shrink", cand)
		if err != nil {
			h.obs.ShrinkStopped(step, err)
			return Trial{}, outOfTime
		}
		if ctx.Err() != nil {
			return Trial{}, outOfTime // a prefix of a run: not a candidate's verdict
		}
		if t.Find && h.cfg.same(first, t) {
			failed++
			if failed == 1 {
				found = t
			}
		} else {
			passed++
		}
		if keep, done := ShrinkVerdict(failed, passed); done {
			h.obs.Shrunk(step, keep, failed+passed)
			if keep {
				return found, stillFails
			}
			return Trial{}, passes
		}
	}
}
