package locktest

import (
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
)

// shrinkStep is one simplification of a failing plan, as hunt shrinks its
// finds: apply returns the simpler plan, or false when it changes nothing.
type shrinkStep struct {
	name  string
	apply func(p workloads.Plan) (workloads.Plan, bool)
}

// shrinkSteps are tried in order, each repeated while the plan still
// fails, and the whole list again until a pass keeps nothing: fewer
// processes (halved, at least 2), then no TryLocks, then no stray
// unlocks. The run's seed stays the failure's.
var shrinkSteps = []shrinkStep{
	{"fewer processes", func(p workloads.Plan) (workloads.Plan, bool) {
		if p.Processes <= 2 {
			return p, false
		}
		p.Processes = max(p.Processes/2, 2)
		return p, true
	}},
	{"try_lock_percent 0", func(p workloads.Plan) (workloads.Plan, bool) {
		was := p.TryLockPercent
		p.TryLockPercent = 0
		return p, was != 0
	}},
	{"stray_unlock_percent 0", func(p workloads.Plan) (workloads.Plan, bool) {
		was := p.StrayUnlockPercent
		p.StrayUnlockPercent = 0
		return p, was != 0
	}},
}

// shrink simplifies the failure f with shrinkSteps until none applies or
// the next run would end past deadline. A candidate is kept when most of
// its runs fail (hunt.ShrinkVerdict: runs are not deterministic). It
// returns the smallest failure and the steps kept; a run that could not be
// made, or the budget (errOutOfTime), ends shrinking with its error.
func (s *suite) shrink(st *checkState, f *failure, deadline time.Time) (*failure, []string, error) {
	var kept []string
	for progress := true; progress; {
		progress = false
		for _, step := range shrinkSteps {
			for {
				cand, ok := step.apply(f.plan)
				if !ok {
					break
				}
				cand.Locks = slices.Clone(cand.Locks)
				g, err := st.tryCandidate(s, cand, f.seed, deadline)
				if err != nil { // errOutOfTime among them
					return f, kept, err
				}
				if g == nil {
					break // the simpler plan passed
				}
				f, progress = g, true
				kept = append(kept, step.name)
			}
		}
	}
	return f, kept, nil
}
