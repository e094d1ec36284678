package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// Expect is the verdict a subject must produce under a scenario.
type Expect struct {
	// Label is the expectation in a few words, for the matrix ("valid",
	// "detected", "mutex broken, fences held").
	Label string
	// Verdict is the combined verdict required ("" : anything goes, the
	// cell is informational).
	Verdict model.Verdict
	// Checkers are verdicts individual checkers must give (a checker
	// listed here must have run).
	Checkers map[string]model.Verdict
	// Skip, if set, says why the subject cannot run on the scenario's
	// topology: the cell is recorded as skipped, never run, never failed.
	Skip string
}

// Informational reports whether e requires nothing.
func (e Expect) Informational() bool { return e.Verdict == "" && len(e.Checkers) == 0 }

// Detects reports whether e expects a violation.
func (e Expect) Detects() bool { return e.Verdict == model.Invalid }

// Match reports whether rep meets e, and if not, why.
func (e Expect) Match(rep model.Report) (bool, string) {
	var why []string
	if e.Verdict != "" && rep.Verdict != e.Verdict {
		why = append(why, fmt.Sprintf("verdict %s, want %s", rep.Verdict, e.Verdict))
	}
	names := make([]string, 0, len(e.Checkers))
	for c := range e.Checkers {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		want := e.Checkers[c]
		r, ok := rep.Result(c)
		switch {
		case !ok:
			why = append(why, c+" did not run")
		case r.Verdict != want:
			why = append(why, fmt.Sprintf("%s %s, want %s", c, r.Verdict, want))
		}
	}
	return len(why) == 0, strings.Join(why, "; ")
}

// Common expectations.
var (
	// ExpectValid: every checker passes.
	ExpectValid = Expect{Label: "valid", Verdict: model.Valid}
	// ExpectDetected: some checker reports the violation.
	ExpectDetected = Expect{Label: "detected", Verdict: model.Invalid}
	// ExpectMutexBroken: the lock's history is not linearizable (two
	// holders at once) and the protected register saw overlapping
	// read-modify-writes.
	ExpectMutexBroken = Expect{Label: "detected", Verdict: model.Invalid, Checkers: map[string]model.Verdict{
		model.CheckLinearizable: model.Invalid,
	}}
	// ExpectFencesHeld: mutual exclusion broke (the lock's history is not
	// linearizable) but the fenced register rejected the stale holder's
	// write, so the resource stayed consistent and the accepted tokens
	// increased.
	ExpectFencesHeld = Expect{Label: "mutex broken, fences held", Verdict: model.Invalid, Checkers: map[string]model.Verdict{
		model.CheckLinearizable:    model.Invalid,
		model.CheckMutualExclusion: model.Valid,
		model.CheckFencing:         model.Valid,
	}}
	// ExpectAny requires nothing (a mutant on a safe scenario may or may
	// not trip over it).
	ExpectAny = Expect{Label: "-"}
)

// DefaultExpect is the expectation of a scenario without an override:
// reference, peer and user locks pass safe scenarios; every lock is caught
// by an unsafe one; a mutant on a safe scenario is informational (it has its
// own catching runs in the workloads tests).
func DefaultExpect(safe bool, s workloads.Subject) Expect {
	switch {
	case !safe:
		return ExpectDetected
	case s.Kind == workloads.KindMutant:
		return ExpectAny
	}
	return ExpectValid
}
