package rediscover

import (
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// Class says how a hunt's find stands against the fault of its run.
type Class string

const (
	// Beyond: the fault-allowance checker found an anomaly that no fault
	// of the run allows a correct lease lock.
	Beyond Class = "beyond the fault"
	// NoFault: a plain run was invalid, with a violation that nothing the
	// run recorded allows, or the fault-allowance checker did not judge.
	NoFault Class = "no fault"
	// Allowed: a scenario's run was invalid, but the fault-allowance
	// checker found every anomaly allowed by the run's fault (or one it
	// does not judge): any lease lock may break that way there, so the
	// find is not the bug. A plain run is Allowed alike when that checker
	// found every anomaly allowed and each of its violations is allowed by
	// what the run recorded: it overlaps a fault window (a reconnect its
	// plan made, a hiccup of the harness), or its checker names what
	// allows it (a lease that could run out: a hold the plan kept past
	// its explicit lease).
	Allowed Class = "allowed by the fault"
	// Unclassed: a scenario's run was invalid and the fault-allowance
	// checker decided nothing (it did not run, or ran out of time).
	Unclassed Class = "unclassed"
)

// Counts reports whether a find of class c counts as the bug found: only
// one that went beyond the fault, or broke with no fault at all.
func (c Class) Counts() bool { return c == Beyond || c == NoFault }

// classify is the class of t, a run that a hunt took for a find.
func classify(t hunt.Trial) Class {
	res, ok := t.Report.Result(model.CheckAllowance)
	switch {
	case ok && res.Verdict == model.Invalid:
		return Beyond
	case ok && res.Verdict == model.Valid && (t.Draw.Scenario != nil || allAllowed(t.Report)):
		return Allowed
	case t.Draw.Scenario == nil:
		return NoFault
	}
	return Unclassed
}

// allAllowed reports whether r has violations, all shown (no result
// counts more than its examples) but mutual exclusion's, and each one
// shown overlaps fault windows its checker did not judge it beyond or
// names what allows it. Every violation of mutual exclusion is two holds
// of one lock at once, which the fault-allowance checker judges, shown or
// not (model.CheckBeyond): when that checker allowed every anomaly, an
// unshown overlap was allowed too; another checker's unshown violation
// may be one it does not judge.
func allAllowed(r model.Report) bool {
	n := 0
	for _, res := range r.Results {
		if res.Verdict != model.Invalid {
			continue
		}
		if res.Count > len(res.Examples) && res.Checker != model.CheckMutualExclusion {
			return false
		}
		for _, ex := range res.Examples {
			if n++; !model.SignatureOf(res.Checker, ex).During() && !ex.LeaseCouldExpire && !ex.HoldCouldBeLost && ex.AllowedBy == "" {
				return false
			}
		}
	}
	return n > 0
}
