package main

import (
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// findMatcher is the predicate by which `lockcheck bisect` says a replay
// shows the find whose checkers' report is find: the one place it defines
// "the same find" (a violation signature, issue 41 item 1, replaces it
// here). A replay shows the find when it is a find (hunt.Trial.Find: an
// invalid plain run, a scenario's verdict not the expected one), one of
// its invalid checkers is one of find's with the same violation class
// (model.Class; the fault-allowance checker aside), and, when find went
// beyond its run's fault (model.Report.Beyond), it did too. A find with no
// invalid checker (a scenario's verdict short of the one it expects)
// matches any find beyond the same fault. With no report (a find given as
// a plan and a seed) every find matches.
func findMatcher(find *model.Report) func(hunt.Trial) bool {
	if find == nil {
		return func(t hunt.Trial) bool { return t.Find }
	}
	want, beyond := invalidClasses(*find), find.Beyond()
	return func(t hunt.Trial) bool {
		if !t.Find || beyond && !t.Report.Beyond() {
			return false
		}
		if len(want) == 0 {
			return true
		}
		for checker, class := range invalidClasses(t.Report) {
			if c, ok := want[checker]; ok && c == class {
				return true
			}
		}
		return false
	}
}

// invalidClasses maps each checker that found rep invalid, but the
// fault-allowance checker (Beyond stands for it), to its violation class.
func invalidClasses(rep model.Report) map[string]model.Class {
	m := map[string]model.Class{}
	for _, r := range rep.Results {
		if r.Verdict == model.Invalid && r.Checker != model.CheckAllowance {
			m[r.Checker] = r.Class
		}
	}
	return m
}
