package rediscover

import (
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// TestClassify: a run's class from its draw (plain or a scenario's), the
// fault-allowance verdict and whether its violations overlap the fault
// windows it recorded. A plain run's violation inside a window its plan
// made (a reconnect) or the harness measured (a hiccup) is allowed as a
// scenario's is when the checker allowed every anomaly; one outside every
// window, or with the checker silent, counts.
func TestClassify(t *testing.T) {
	during := []model.Fault{{Name: "reconnect", Target: "w1", Start: 10, End: 20}}
	report := func(allowance model.Verdict, faults []model.Fault) model.Report {
		lin := model.Result{Checker: model.CheckLinearizable, Verdict: model.Invalid,
			Examples: []model.Example{{Class: model.ClassSafety, Shape: model.ShapeDoubleGrant, Faults: faults,
				Ops: []model.Op{{Process: 0, Lock: "L", Kind: model.Acquire, Call: 12, Return: 15, Outcome: model.OK}}}}}
		r := model.Report{Verdict: model.Invalid, Results: []model.Result{lin}}
		if allowance != "" {
			r.Results = append(r.Results, model.Result{Checker: model.CheckAllowance, Verdict: allowance})
		}
		return r
	}
	sc := &scenario.Scenario{Name: "pause-mix"}
	cases := []struct {
		name      string
		scenario  *scenario.Scenario
		allowance model.Verdict
		faults    []model.Fault
		want      Class
	}{
		{"plain, no window", nil, model.Valid, nil, NoFault},
		{"plain, inside a window, allowed", nil, model.Valid, during, Allowed},
		{"plain, inside a window, beyond it", nil, model.Invalid, during, Beyond},
		{"plain, inside a window, checker unknown", nil, model.Unknown, during, NoFault},
		{"plain, inside a window, checker absent", nil, "", during, NoFault},
		{"scenario, allowed", sc, model.Valid, during, Allowed},
		{"scenario, no window, allowed", sc, model.Valid, nil, Allowed},
		{"scenario, checker absent", sc, "", during, Unclassed},
	}
	for _, c := range cases {
		tr := hunt.Trial{Draw: hunt.Draw{Scenario: c.scenario}, Report: report(c.allowance, c.faults)}
		if got := classify(tr); got != c.want {
			t.Errorf("%s: %s, want %s (signatures %v)", c.name, got, c.want, tr.Report.Signatures())
		}
	}
}
