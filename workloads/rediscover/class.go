package rediscover

import (
	"slices"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// Class says how a hunt's find stands against the fault of its run.
type Class string

const (
	// Beyond: the fault-allowance checker found an anomaly that no fault
	// of the run allows a correct lease lock.
	Beyond Class = "beyond the fault"
	// NoFault: a plain run was invalid, with a violation that no fault
	// window overlaps, or one the fault-allowance checker did not judge.
	NoFault Class = "no fault"
	// Allowed: a scenario's run was invalid, but the fault-allowance
	// checker found every anomaly allowed by the run's fault (or one it
	// does not judge): any lease lock may break that way there, so the
	// find is not the bug. A plain run is Allowed alike when every one of
	// its violations overlaps a fault window it recorded (a reconnect its
	// plan made, a hiccup of the harness) and that checker found every
	// anomaly allowed.
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
	case ok && res.Verdict == model.Valid && (t.Draw.Scenario != nil || allDuring(t.Report.Signatures())):
		return Allowed
	case t.Draw.Scenario == nil:
		return NoFault
	}
	return Unclassed
}

// allDuring reports whether sigs is not empty and each overlaps fault
// windows its checker did not judge it beyond.
func allDuring(sigs []model.Signature) bool {
	return len(sigs) > 0 && !slices.ContainsFunc(sigs, func(s model.Signature) bool { return !s.During() })
}
