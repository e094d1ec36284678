package scenario

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
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
	// listed here must have run): on an unsafe scenario, Invalid for the
	// checkers that own the property it breaks (they must fire).
	Checkers map[string]model.Verdict
	// Quiet are checkers that must not fire (report Invalid); one that did
	// not run is quiet. An unsafe scenario detected only by a bystander (a
	// fair lock whose stalled holder delays its queue, say) does not meet
	// an expectation that names the owner in Checkers and the bystander
	// here.
	Quiet []string
	// MayBreak are checkers that may fire without being required to: the
	// fault takes their property away by design (Scenario.Destroys).
	// Match ignores them; Tolerated accepts their violations.
	MayBreak []string
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
	for _, c := range e.Quiet {
		if r, ok := rep.Result(c); ok && r.Verdict == model.Invalid {
			why = append(why, c+" invalid, must not fire")
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

// DefaultOwners are the checkers that own the property the catalog's unsafe
// scenarios break, mutual exclusion: the lock's own history stops being
// linearizable (the protected register may or may not see the overlap).
var DefaultOwners = []string{model.CheckLinearizable}

// Bystanders are the checkers of properties no unsafe scenario breaks
// outside its fault windows (they excuse what overlaps a fault): on an
// unsafe scenario they must stay quiet for every subject but mutants.
var Bystanders = []string{model.CheckFairness, model.CheckLiveness}

// OwnedBy completes e, the expectation of subject s on an unsafe scenario
// whose broken property owners own: a detecting expectation that names no
// checker requires every owner to fire, and one that names no quiet
// checkers requires the bystanders it does not name to stay quiet (except
// for mutants, which may break anything). Every detecting expectation of a
// lock that is not a mutant requires the fault-allowance checker to stay
// quiet: the scenario's fault breaks the lock, but only within what the
// fault allows (model.FaultAllowances). Other expectations are returned
// unchanged.
func OwnedBy(e Expect, owners []string, s subject.Subject) Expect {
	if !e.Detects() {
		return e
	}
	if len(e.Checkers) == 0 {
		e.Checkers = map[string]model.Verdict{}
		for _, c := range owners {
			e.Checkers[c] = model.Invalid
		}
		e.Label = "detected by " + abbrevs(owners)
	}
	if e.Quiet == nil && s.Kind != subject.KindMutant {
		e.Quiet = []string{}
		for _, c := range Bystanders {
			if _, named := e.Checkers[c]; !named {
				e.Quiet = append(e.Quiet, c)
			}
		}
	}
	if _, named := e.Checkers[model.CheckAllowance]; !named && s.Kind != subject.KindMutant && !slices.Contains(e.Quiet, model.CheckAllowance) {
		e.Quiet = append(slices.Clip(e.Quiet), model.CheckAllowance)
	}
	return e
}

func abbrevs(checkers []string) string {
	out := make([]string, len(checkers))
	for i, c := range checkers {
		out[i] = model.Abbrev(c)
	}
	return strings.Join(out, "+")
}

// DefaultExpect is the expectation of a scenario without an override:
// reference, peer and user locks pass safe scenarios; every lock is caught
// by an unsafe one; a mutant on a safe scenario is informational (it has its
// own catching runs in the workloads tests).
func DefaultExpect(safe bool, s subject.Subject) Expect {
	switch {
	case !safe:
		return ExpectDetected
	case s.Kind == subject.KindMutant:
		return ExpectAny
	}
	return ExpectValid
}
