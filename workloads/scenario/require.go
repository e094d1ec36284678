package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Requirement is what every run of a scenario must show of a lock that
// claims to be correct: what a hunt and locktest hold each run to, where
// the scenario's expectation (Expectation) says what a run of a known
// subject is expected to show.
type Requirement struct {
	// Must is matched against the report: the scenario's expectation on a
	// must-pass scenario; on an unsafe one, that the fault-allowance
	// checker ran and found nothing beyond the fault's allowance.
	Must Expect
	// Tolerates, on an unsafe scenario, is the scenario's expectation: a
	// checker that fires must be one it tolerates (Expect.Tolerated).
	Tolerates *Expect
}

// Require is what every run of sc must show of s, judged as the lock it
// claims to be (subject.Subject.AsClaimed: a mutant as a correct lock). On
// a must-pass scenario, and on an unsafe one the lock must pass anyway, it
// is the scenario's expectation. On an unsafe scenario it is that nothing
// goes beyond the fault's allowance: the fault-allowance checker ran and
// is valid, and every checker that fires is one the scenario's
// expectation tolerates (the properties the fault takes away from any
// lease lock, not the bystanders it must leave alone, nor a fenced lock's
// fences). The checkers the expectation requires to fire need not: a run
// may meet its fault at a moment that breaks nothing.
func (sc Scenario) Require(s subject.Subject) Requirement {
	e := sc.Expectation(s.AsClaimed())
	if sc.Safe || e.Verdict == model.Valid {
		return Requirement{Must: e}
	}
	return Requirement{
		Must: Expect{Label: "within the fault's allowance", Checkers: map[string]model.Verdict{
			model.CheckAllowance: model.Valid,
		}},
		Tolerates: &e,
	}
}

// Hunted reports whether a hunt can find anything under r: an unsafe
// scenario's within the fault, or a must-pass requirement that does not
// expect a violation and requires something: a verdict, a checker's, or
// checkers that must stay quiet (a safe scenario's "within the fault" for
// a library's own client: fault-allowance quiet, the rest may break). A
// skipped or informational expectation requires nothing, and one that
// expects the lock to break there (a known bug) is met by every run that
// breaks it.
func (r Requirement) Hunted() bool {
	if r.Must.Skip != "" {
		return false
	}
	requires := !r.Must.Informational() || len(r.Must.Quiet) > 0
	return r.Tolerates != nil || requires && !r.Must.Detects()
}

// Match reports whether rep meets r, and if not, why.
func (r Requirement) Match(rep model.Report) (bool, string) {
	ok, why := r.Must.Match(rep)
	if r.Tolerates == nil {
		return ok, why
	}
	var whys []string
	if !ok {
		whys = append(whys, why)
	}
	ran := make([]string, len(rep.Results))
	for i, res := range rep.Results {
		ran[i] = res.Checker
	}
	tolerated := r.Tolerates.Tolerated(ran, false)
	for _, res := range rep.Results {
		if res.Verdict == model.Invalid && res.Checker != model.CheckAllowance && !slices.Contains(tolerated, res.Checker) {
			whys = append(whys, res.Checker+" invalid, which this fault must leave alone")
		}
	}
	return len(whys) == 0, strings.Join(whys, "; ")
}

// Label is the requirement in a few words.
func (r Requirement) Label() string { return r.Must.Label }

// Judge reports whether rep, of a run of sc, meets sc.Require(s), and if
// not, why (naming what was required).
func Judge(sc Scenario, s subject.Subject, rep model.Report) (bool, string) {
	r := sc.Require(s)
	ok, why := r.Match(rep)
	if !ok {
		why = fmt.Sprintf("%s (required: %s)", why, r.Label())
	}
	return ok, why
}

// Fits says why s cannot run sc ("": it can): the scenario skips it, or
// sc's critical sections outlast its lease and s claims no watchdog.
func (sc Scenario) Fits(s subject.Subject) string {
	if why := sc.Expectation(s.AsClaimed()).Skip; why != "" {
		return why
	}
	if s.NoWatchdog && sc.NeedsWatchdog() {
		return "its critical sections outlast the lease: only a watchdog keeps them safe"
	}
	return ""
}

// NeedsWatchdog says sc's critical sections outlast its lease, which only
// a watchdog's renewals make safe: a lock with a fixed lease breaks there
// with no fault at all.
func (sc Scenario) NeedsWatchdog() bool {
	lease := sc.WatchdogLease
	if lease == 0 {
		lease = Lease
	}
	return sc.Plan.LongHolds && sc.Plan.Hold.Max > lease
}
