package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

func lookupSubject(t *testing.T, name string) subject.Subject {
	t.Helper()
	s, err := catalog.Subjects.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fairnessOnly is the report of issue 14 item 5: the fair lock on
// client-stall, invalid through the fairness checker alone while mutual
// exclusion held.
var fairnessOnly = report(model.Invalid, map[string]model.Verdict{
	model.CheckLinearizable: model.Valid, model.CheckMutualExclusion: model.Valid,
	model.CheckFairness: model.Invalid, model.CheckLiveness: model.Valid,
})

// An unsafe scenario is met only when the checkers that own the broken
// property fire and the bystanders stay quiet, for every subject: "invalid
// for any reason" is not a detection.
func TestUnsafeExpectationsNameOwners(t *testing.T) {
	owned := report(model.Invalid, map[string]model.Verdict{
		model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Invalid,
		model.CheckFairness: model.Valid, model.CheckLiveness: model.Valid,
	})
	ownedPlusFair := report(model.Invalid, map[string]model.Verdict{
		model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Invalid,
		model.CheckFairness: model.Invalid, model.CheckLiveness: model.Valid,
	})
	for _, tt := range []struct{ scenario, subject string }{
		{"client-stall", "fair"}, {"client-stall", "reentrant"}, {"client-stall", "redsync"},
		{"restart-no-persistence", "fair"}, {"restart-no-persistence", "simple"}, {"restart-no-persistence", "redislock"},
		{"partition-long", "simple"},
	} {
		sc, err := Lookup(tt.scenario)
		if err != nil {
			t.Fatal(err)
		}
		e := sc.Expectation(lookupSubject(t, tt.subject))
		if e.Checkers[model.CheckLinearizable] != model.Invalid {
			t.Errorf("%s/%s: expectation %q does not require linearizable to fire: %+v", tt.scenario, tt.subject, e.Label, e.Checkers)
		}
		if !slices.Contains(e.Quiet, model.CheckFairness) || !slices.Contains(e.Quiet, model.CheckLiveness) {
			t.Errorf("%s/%s: bystanders not required quiet: %v", tt.scenario, tt.subject, e.Quiet)
		}
		if ok, why := e.Match(fairnessOnly); ok || !strings.Contains(why, model.CheckLinearizable) || !strings.Contains(why, "fairness invalid, must not fire") {
			t.Errorf("%s/%s: fairness alone met %q (%q)", tt.scenario, tt.subject, e.Label, why)
		}
		if ok, why := e.Match(ownedPlusFair); ok || !strings.Contains(why, "fairness") {
			t.Errorf("%s/%s: a firing bystander met %q (%q)", tt.scenario, tt.subject, e.Label, why)
		}
		if ok, why := e.Match(owned); !ok {
			t.Errorf("%s/%s: the owners' detection did not meet %q: %s", tt.scenario, tt.subject, e.Label, why)
		}
	}
}

// Mutants may break anything: on an unsafe scenario only the owners must
// fire; safe scenarios and informational cells are unchanged.
func TestOwnedByLeavesOthers(t *testing.T) {
	mutant := subject.Subject{Name: "m", Kind: subject.KindMutant}
	e := OwnedBy(ExpectDetected, DefaultOwners, mutant)
	if e.Quiet != nil || e.Checkers[model.CheckLinearizable] != model.Invalid || e.Label != "detected by lin" {
		t.Fatalf("mutant: %+v", e)
	}
	if got := OwnedBy(ExpectAny, DefaultOwners, lookupSubject(t, "fair")); !got.Informational() {
		t.Fatalf("informational cell got requirements: %+v", got)
	}
	sc, _ := Lookup("no-faults")
	if e := sc.Expectation(lookupSubject(t, "fair")); e.Quiet != nil || len(e.Checkers) != 0 || e.Verdict != model.Valid {
		t.Fatalf("safe scenario: %+v", e)
	}
	fenced := OwnedBy(ExpectFencesHeld, DefaultOwners, lookupSubject(t, "fenced"))
	if fenced.Checkers[model.CheckMutualExclusion] != model.Valid || !slices.Equal(fenced.Quiet, append(slices.Clone(Bystanders), model.CheckAllowance)) {
		t.Fatalf("fences held: %+v", fenced)
	}
}

// On an unsafe scenario every lock but a mutant must stay within its
// fault's allowance: fault-allowance is quiet, and never tolerated unless
// an expectation names it.
func TestUnsafeRequiresWithinAllowance(t *testing.T) {
	sc, _ := Lookup("client-stall")
	for _, name := range []string{"reentrant", "fenced", "redsync"} {
		e := sc.Expectation(lookupSubject(t, name))
		if !slices.Contains(e.Quiet, model.CheckAllowance) {
			t.Errorf("%s: fault-allowance not quiet: %+v", name, e)
		}
		if slices.Contains(e.Tolerated([]string{model.CheckLinearizable, model.CheckAllowance}, false), model.CheckAllowance) {
			t.Errorf("%s: beyond the fault tolerated", name)
		}
		rep := model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckLinearizable, Verdict: model.Invalid},
			{Checker: model.CheckMutualExclusion, Verdict: model.Invalid},
			{Checker: model.CheckFencing, Verdict: model.Valid},
			{Checker: model.CheckAllowance, Verdict: model.Invalid},
		}}
		if ok, _ := e.Match(rep); ok {
			t.Errorf("%s: a run beyond its fault meets the expectation %+v", name, e)
		}
	}
	if e := OwnedBy(ExpectDetected, DefaultOwners, subject.Subject{Name: "m", Kind: subject.KindMutant}); slices.Contains(e.Quiet, model.CheckAllowance) {
		t.Errorf("mutant: fault-allowance quiet: %+v", e)
	}
}

// On slow-reply a driver's lock may break within the fault (it waits for a
// late reply): its expectation tolerates the safety checkers, never
// fault-allowance; lockcheck's own locks must stay valid.
func TestSlowReplyExpectation(t *testing.T) {
	sc, err := Lookup("slow-reply")
	if err != nil {
		t.Fatal(err)
	}
	ran := []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckAllowance}
	driver := subject.Subject{Name: "some-driver", Kind: subject.KindExternal}
	got := sc.Expectation(driver).Tolerated(ran, sc.Safe)
	if want := []string{model.CheckLinearizable, model.CheckMutualExclusion}; !slices.Equal(got, want) {
		t.Fatalf("a driver on slow-reply tolerates %v, want %v", got, want)
	}
	ref := subject.Subject{Name: "reentrant", Kind: subject.KindReference}
	if e := sc.Expectation(ref); e.Verdict != model.Valid || len(e.Tolerated(ran, sc.Safe)) != 0 {
		t.Fatalf("the reference lock on slow-reply: %+v, want valid with nothing tolerated", e)
	}
}
