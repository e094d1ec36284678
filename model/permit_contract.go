package model

import (
	"fmt"
	"time"
)

// CheckPermitsContract reports each release of a permit answered ok once
// the permit's lease had surely ended: called after the acquire's return
// plus its lease plus the clock granularity (Options.PermitGranularity),
// where the linearizability model too admits only a failed release (the
// permit's lease window, permitInput.leaseWindow). Redisson's
// RPermitExpirableSemaphore.release throws for an expired permit, and
// tryRelease answers false. Unlike the model it needs no search, so it
// decides the histories porcupine cannot (many info ops under faults).
func CheckPermitsContract(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckContract}
	names, by, forgotten := judgedObjects(h, opts)
	gran, releases := opts.permitGranularity(), 0
	for _, name := range names {
		acquired := map[string]*Op{}
		for _, i := range by[name] {
			if o := &h.Ops[i]; o.Kind == PermitAcquire && o.Outcome == OK && o.PermitID != "" {
				acquired[o.PermitID] = o
			}
		}
		for _, i := range by[name] {
			r := &h.Ops[i]
			if r.Kind != PermitRelease || r.Outcome != OK {
				continue
			}
			releases++
			a := acquired[r.PermitID]
			if a == nil || a.Lease <= 0 || r.Call <= a.Return+a.Lease+gran {
				continue
			}
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				e := Example{Lock: name, Class: ClassContract, Shape: ShapeUnlockAfterLapse, Ops: []Op{*a, *r},
					Summary: fmt.Sprintf("p%d's release of permit %s answered ok at %s, after its %s lease surely ended (granted by %s)",
						r.Process, r.PermitID, fmtTime(r.Call), time.Duration(a.Lease), fmtTime(a.Return))}
				e.Faults = faultsOverlapping(h, e.Ops)
				res.Examples = append(res.Examples, e)
			}
		}
	}
	if res.Count > 0 {
		res.Verdict = Invalid
		res.Explanation = fmt.Sprintf("%d of %d permit releases answered ok after the permit's lease surely ended", res.Count, releases) + forgottenNote(forgotten)
	} else {
		res.Verdict = Valid
		res.Explanation = fmt.Sprintf("%d permit releases answered ok, none after its permit's lease surely ended", releases) + forgottenNote(forgotten)
	}
	res.Elapsed = time.Since(start)
	return res
}
