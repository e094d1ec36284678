package model

import "math"

// permitsOf returns the permits an acquire op takes: N for a counting
// semaphore's, one for a permit semaphore's.
func permitsOf(o *Op) int64 {
	if o.Kind == PermitAcquire {
		return 1
	}
	return o.N
}

// isGrantKind reports whether k takes permits.
func isGrantKind(k Kind) bool { return k == SemAcquire || k == PermitAcquire }

// permitReleases maps each permit id to the index of its first release.
func permitReleases(h *History, ix []int) map[string]int {
	rel := map[string]int{}
	for _, i := range ix {
		o := &h.Ops[i]
		if o.Kind == PermitRelease && o.PermitID != "" {
			if _, ok := rel[o.PermitID]; !ok {
				rel[o.PermitID] = i
			}
		}
	}
	return rel
}

// permitCertainHeld is the permits of a permit semaphore certainly held:
// each ok acquire's, from its return until the call of its release (any
// outcome) or the earliest its lease can end, whichever comes first.
func permitCertainHeld(h *History, ix []int, gran int64) steps {
	rel := permitReleases(h, ix)
	var evs []stepEvent
	for _, i := range ix {
		o := &h.Ops[i]
		if o.Kind != PermitAcquire || o.Outcome != OK {
			continue
		}
		end := int64(math.MaxInt64)
		if o.Lease > 0 {
			end = o.Call + o.Lease - gran
		}
		if r, ok := rel[o.PermitID]; ok {
			end = min(end, h.Ops[r].Call)
		}
		if end > o.Return {
			evs = append(evs, stepEvent{o.Return, 1}, stepEvent{end, -1})
		}
	}
	return newSteps(evs)
}

// permitMaybeHeld is the most permits of a permit semaphore that may have
// been taken: each acquire not refused, from its call until the return of
// its release or the latest its lease can end (an expired permit stays
// taken until a script returns it: the waiter's own next attempt).
func permitMaybeHeld(h *History, ix []int, gran int64) steps {
	rel := permitReleases(h, ix)
	var evs []stepEvent
	for _, i := range ix {
		o := &h.Ops[i]
		if o.Kind != PermitAcquire || o.Outcome == Fail {
			continue
		}
		end := int64(math.MaxInt64)
		if o.Lease > 0 {
			end = o.effectiveDeadline() + o.Lease + gran
		}
		if r, ok := rel[o.PermitID]; ok && o.Outcome == OK {
			end = min(end, h.Ops[r].effectiveDeadline())
		}
		evs = append(evs, stepEvent{o.Call, 1}, stepEvent{end, -1})
	}
	return newSteps(evs)
}
