package hunt

import (
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// A scenario's run is judged by Config.Judge when set, else by the
// scenario's expectation.
func TestJudgeScenario(t *testing.T) {
	sc, err := scenario.Lookup("no-faults")
	if err != nil {
		t.Fatal(err)
	}
	subj := subject.Subject{Name: "reentrant", Kind: subject.KindReference}
	invalid := model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid}}}
	if find, why := judgeScenario(sc, subj, invalid, nil); !find || !strings.Contains(why, "not as required: verdict invalid, want valid") {
		t.Errorf("by the expectation: find %v, %q", find, why)
	}
	lenient := func(scenario.Scenario, model.Report) (bool, string) { return true, "" }
	if find, why := judgeScenario(sc, subj, invalid, lenient); find {
		t.Errorf("a judge that accepts the run: find, %q", why)
	}
	strict := func(scenario.Scenario, model.Report) (bool, string) { return false, "fault-allowance invalid" }
	if find, why := judgeScenario(sc, subj, model.Report{Verdict: model.Valid}, strict); !find || !strings.Contains(why, "not as required: fault-allowance invalid") {
		t.Errorf("a judge that rejects the run: find %v, %q", find, why)
	}
}
