package scenario

import (
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// A mutant is required what the correct lock it claims to be is: valid on
// a scenario a correct lock must pass (its own expectation there requires
// nothing), and within the fault on an unsafe one.
func TestRequireJudgesAMutantAsClaimed(t *testing.T) {
	mutant := subject.Subject{Name: "m", Kind: subject.KindMutant, Reentrant: true}
	for _, tc := range []struct {
		scenario string
		hunted   bool
		within   bool // the requirement is "within the fault's allowance"
	}{
		{"no-faults", true, false},
		{"client-crash", true, false},
		{"client-stall", true, true},
		{"partition-long", true, true},
	} {
		sc, err := Lookup(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		if e := sc.Expectation(mutant); tc.scenario == "no-faults" && !e.Informational() {
			t.Errorf("%s: a mutant's own expectation requires %q; this test assumes nothing", tc.scenario, e.Label)
		}
		r := sc.Require(mutant)
		if r.Hunted() != tc.hunted || (r.Tolerates != nil) != tc.within {
			t.Errorf("%s: hunted %v, within the fault %v (%q); want %v, %v", tc.scenario, r.Hunted(), r.Tolerates != nil, r.Label(), tc.hunted, tc.within)
		}
		broken := model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckLinearizable, Verdict: model.Invalid},
			{Checker: model.CheckAllowance, Verdict: model.Valid},
		}}
		if ok, _ := r.Match(broken); ok != tc.within {
			t.Errorf("%s: a run broken within the fault meets the requirement: %v, want %v", tc.scenario, ok, tc.within)
		}
	}
}

// A known bug's expectation (the lock must break there) gives a hunt
// nothing to find; a skipped scenario neither.
func TestRequireHuntsNothingKnown(t *testing.T) {
	if (Requirement{Must: Expect{Verdict: model.Invalid}}).Hunted() {
		t.Error("a scenario where the lock is known to break is hunted")
	}
	if (Requirement{Must: Expect{Skip: "no"}}).Hunted() {
		t.Error("a skipped scenario is hunted")
	}
	if (Requirement{Must: ExpectAny}).Hunted() {
		t.Error("an informational scenario is hunted")
	}
}

// A library's own client on a wire scenario (an external driver's) must
// stay within the fault: fault-allowance quiet, the other checkers free to
// fire. That is a requirement a run can break, so a hunt deals the
// scenario: a refused renewal that stops a watchdog is found there.
func TestRequireHuntsWithinTheFault(t *testing.T) {
	lib := subject.Subject{Name: "lib", Kind: subject.KindExternal, Reentrant: true}
	for _, name := range []string{"renewal-refused", "slow-reply", "client-conn-kill", "wire-mix"} {
		sc, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		r := sc.Require(lib)
		if !r.Hunted() {
			t.Errorf("%s (%q): not hunted for a library's own client", name, r.Label())
		}
		within := model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckLinearizable, Verdict: model.Invalid},
			{Checker: model.CheckAllowance, Verdict: model.Valid},
		}}
		beyond := model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckAllowance, Verdict: model.Invalid},
		}}
		if ok, why := r.Match(within); !ok {
			t.Errorf("%s: a run broken within the fault is a find: %s", name, why)
		}
		if ok, _ := r.Match(beyond); ok {
			t.Errorf("%s: a run beyond the fault meets the requirement", name)
		}
	}
}
