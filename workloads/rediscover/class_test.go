package rediscover

import (
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// TestClassify: a run's class from its draw (plain or a scenario's), the
// fault-allowance verdict and what allows its violations. A plain run's
// violation inside a window its plan made (a reconnect) or the harness
// measured (a hiccup), or one its checker says a lease allows, is allowed
// as a scenario's is when the fault-allowance checker allowed every
// anomaly; one nothing allows, one not shown (but an overlap of sections,
// which that checker judged), or one with that checker silent, counts.
func TestClassify(t *testing.T) {
	during := []model.Fault{{Name: "reconnect", Target: "w1", Start: 10, End: 20}}
	report := func(checker string, allowance model.Verdict, faults []model.Fault, lease bool, count int) model.Report {
		lin := model.Result{Checker: checker, Verdict: model.Invalid, Count: count,
			Examples: []model.Example{{Class: model.ClassSafety, Shape: model.ShapeDoubleGrant, Faults: faults, LeaseCouldExpire: lease,
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
		lease     bool // the example's first hold could have run out (its lease)
		count     int  // the violations counted (0: the one shown; < 0: -count overlapping sections, mutual exclusion's)
		want      Class
	}{
		{"plain, no window", nil, model.Valid, nil, false, 0, NoFault},
		{"plain, inside a window, allowed", nil, model.Valid, during, false, 0, Allowed},
		{"plain, inside a window, beyond it", nil, model.Invalid, during, false, 0, Beyond},
		{"plain, inside a window, checker unknown", nil, model.Unknown, during, false, 0, NoFault},
		{"plain, inside a window, checker absent", nil, "", during, false, 0, NoFault},
		{"plain, inside a window, one more not shown", nil, model.Valid, during, false, 2, NoFault},
		{"plain, inside a window, one more overlap not shown", nil, model.Valid, during, false, -2, Allowed},
		{"plain, no window, one more overlap not shown", nil, model.Valid, nil, false, -2, NoFault},
		{"plain, inside a window, one more overlap not shown, beyond", nil, model.Invalid, during, false, -2, Beyond},
		{"plain, a lease ran out, allowed", nil, model.Valid, nil, true, 0, Allowed},
		{"plain, a lease ran out, beyond it", nil, model.Invalid, nil, true, 0, Beyond},
		{"scenario, allowed", sc, model.Valid, during, false, 0, Allowed},
		{"scenario, no window, allowed", sc, model.Valid, nil, false, 0, Allowed},
		{"scenario, checker absent", sc, "", during, false, 0, Unclassed},
	}
	for _, c := range cases {
		checker, count := model.CheckLinearizable, c.count
		if count < 0 {
			checker, count = model.CheckMutualExclusion, -count
		}
		tr := hunt.Trial{Draw: hunt.Draw{Scenario: c.scenario}, Report: report(checker, c.allowance, c.faults, c.lease, count)}
		if got := classify(tr); got != c.want {
			t.Errorf("%s: %s, want %s (signatures %v)", c.name, got, c.want, tr.Report.Signatures())
		}
	}
}
