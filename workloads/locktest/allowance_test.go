package locktest

import (
	"slices"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// report is a report with the given verdict per checker.
func report(verdicts map[string]model.Verdict) model.Report {
	rep := model.Report{Verdict: model.Valid}
	for _, c := range []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFencing, model.CheckLiveness, model.CheckContract, model.CheckAllowance} {
		v, ok := verdicts[c]
		if !ok {
			v = model.Valid
		}
		if v == "-" {
			continue // did not run
		}
		rep.Results = append(rep.Results, model.Result{Checker: c, Verdict: v})
		if v == model.Invalid || v == model.Unknown && rep.Verdict == model.Valid {
			rep.Verdict = v
		}
	}
	return rep
}

func lookup(t *testing.T, name string) scenario.Scenario {
	t.Helper()
	sc, err := scenario.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// On an unsafe scenario a lock may break what the fault takes away from any
// lease lock, nothing more: fault-allowance must have run and be valid,
// and the bystanders (and a fenced lock's fences, unless the fault destroys
// them) must hold. On a must-pass scenario everything must be valid.
func TestRequire(t *testing.T) {
	const (
		I, V, U = model.Invalid, model.Valid, model.Unknown
		A       = model.CheckAllowance
	)
	plain, fenced := fakeLock("mine", false, false).subject(), fakeLock("mine", true, true).subject()
	fenced.Fenced = true
	for _, tc := range []struct {
		scenario string
		fenced   bool
		verdicts map[string]model.Verdict
		want     string // "" : met; else a part of why not
	}{
		{"client-stall", false, map[string]model.Verdict{model.CheckLinearizable: I, model.CheckMutualExclusion: I}, ""},
		{"client-stall", false, nil, ""}, // the fault broke nothing this time
		{"client-stall", false, map[string]model.Verdict{model.CheckLinearizable: I, A: I}, A + " invalid, want valid"},
		{"client-stall", false, map[string]model.Verdict{A: U}, A + " unknown, want valid"},
		{"client-stall", false, map[string]model.Verdict{A: "-"}, A + " did not run"},
		{"client-stall", false, map[string]model.Verdict{model.CheckLinearizable: I, model.CheckLiveness: I}, "liveness invalid, which this fault must leave alone"},
		{"client-stall", true, map[string]model.Verdict{model.CheckLinearizable: I, model.CheckFencing: I}, "fencing invalid"},
		{"restart-no-persistence", true, map[string]model.Verdict{model.CheckLinearizable: I, model.CheckFencing: I}, ""}, // the restart forgets the counter
		{"partition-long", false, map[string]model.Verdict{model.CheckLinearizable: I, model.CheckMutualExclusion: I}, ""},
		{"no-faults", false, nil, ""},
		{"no-faults", false, map[string]model.Verdict{model.CheckLinearizable: I}, "verdict invalid, want valid"},
	} {
		subj := plain
		if tc.fenced {
			subj = fenced
		}
		r := lookup(t, tc.scenario).Require(subj)
		ok, why := r.Match(report(tc.verdicts))
		if ok != (tc.want == "") || !strings.Contains(why, tc.want) {
			t.Errorf("%s (fenced %v) %v: match = %v, %q; want %q", tc.scenario, tc.fenced, tc.verdicts, ok, why, tc.want)
		}
	}
}

// A failure on an unsafe scenario shows the fault-allowance checker's
// examples first.
func TestExplainAllowanceFirst(t *testing.T) {
	rep := report(map[string]model.Verdict{model.CheckLinearizable: model.Invalid, model.CheckAllowance: model.Invalid})
	for i := range rep.Results {
		if rep.Results[i].Checker == model.CheckAllowance {
			rep.Results[i].Examples = []model.Example{{Lock: "l", Summary: "p1 and p2 both believed they held the lock: beyond the faults"}}
		}
	}
	text := explain(rep)
	a, l := strings.Index(text, "beyond the faults"), strings.Index(text, model.CheckLinearizable)
	if !strings.Contains(text, "beyond the fault's allowance") || a < 0 || l < a {
		t.Errorf("explain:\n%s", text)
	}
}

// Hunt draws the unsafe scenarios that fit the lock beside the must-pass
// ones, and judges them by what they require.
func TestHuntScenarios(t *testing.T) {
	l := fakeLock("mine", false, false)
	got := scenarioNames(huntScenarios(l.subject(), nil))
	for _, want := range []string{"no-faults", "client-crash", "client-stall", "restart-no-persistence", "clock-jump-forward", "sentinel-split-brain"} {
		if !slices.Contains(got, want) {
			t.Errorf("a hunt of a lock with a fixed lease does not draw %s: %v", want, got)
		}
	}
	if slices.Contains(got, "partition-long") || slices.Contains(got, "redlock-restart-empty") {
		t.Errorf("a hunt of a lock with a fixed lease draws scenarios that do not fit it: %v", got)
	}
	l.Watchdog = true
	if got := scenarioNames(huntScenarios(l.subject(), []string{"partition-long", "no-faults"})); !slices.Equal(got, []string{"no-faults", "partition-long"}) {
		t.Errorf("Scenarios(partition-long, no-faults) of a watchdog lock: the hunt draws %v", got)
	}
	j := func(sc scenario.Scenario, rep model.Report) (bool, string) {
		return scenario.Judge(sc, l.subject(), rep)
	}
	if ok, why := j(lookup(t, "client-stall"), report(map[string]model.Verdict{model.CheckLinearizable: model.Invalid})); !ok {
		t.Errorf("a stall that broke only linearizability: %s", why)
	}
	if ok, why := j(lookup(t, "client-stall"), report(map[string]model.Verdict{model.CheckAllowance: model.Invalid})); ok || !strings.Contains(why, model.CheckAllowance) {
		t.Errorf("a stall beyond its allowance: %v, %q", ok, why)
	}
}

func scenarioNames(scs []scenario.Scenario) []string {
	var out []string
	for _, sc := range scs {
		out = append(out, sc.Name)
	}
	return out
}
