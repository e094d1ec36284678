package workloads

import (
	"math/rand/v2"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// nest makes, in the plan's NestPercent of cycles (none in a storm), a hold
// of a second lock inside the hold of outer (Plan.NestPercent): taken as
// any acquire, or by one attempt under an explicit lease, held for one
// section and released. It reports false when the process was retired or
// crashed meanwhile: a retirement ends its holds on every lock (model:
// an op that retires a process), so the outer hold needs no op of its own.
func (w *worker) nest(outer string, storm bool) bool {
	plan, p := w.r.plan, w.p
	if plan.NestPercent == 0 || storm || p.rng.IntN(100) >= plan.NestPercent {
		return true
	}
	inner := innerOf(plan.Locks, outer, p.rng)
	if inner == "" {
		return true
	}
	how := w.drawAcquire(false)
	if plan.Lease > 0 {
		how.try, how.wait = true, 0
	}
	h := w.handle(inner)
	switch w.acquire(h, inner, how).Outcome {
	case model.OK:
	case model.Fail:
		return true
	default:
		return false // info (retired) or crashed
	}
	if !w.section(h, inner, sectionSpec{hold: plan.Hold.Draw(p.rng)}) {
		return false
	}
	holds := 1
	return w.releaseHold(h, inner, plan.Lease, &holds)
}

// innerOf draws with rng the lock a holder of outer nests: one of locks
// after outer in name order, "" when outer is the last. Nesting only ever
// goes up that order, so two nesting owners never wait on each other.
func innerOf(locks []string, outer string, rng *rand.Rand) string {
	var later []string
	for _, l := range locks {
		if l > outer {
			later = append(later, l)
		}
	}
	if len(later) == 0 {
		return ""
	}
	slices.Sort(later)
	return later[rng.IntN(len(later))]
}
