package locktest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// requirement is what every run of a scenario must show for the lock.
type requirement struct {
	// must is matched against the report: the scenario's expectation on
	// a must-pass scenario; on an unsafe one, that the fault-allowance
	// checker ran and found nothing beyond the fault's allowance.
	must scenario.Expect
	// tolerates, on an unsafe scenario, is the scenario's expectation: a
	// checker that fires must be one it tolerates (Expect.Tolerated).
	tolerates *scenario.Expect
}

// require is what every run of sc must show for subj. On a must-pass
// scenario, and on an unsafe one the lock must pass anyway, it is the
// scenario's expectation. On an unsafe scenario it is that nothing goes
// beyond the fault's allowance: the fault-allowance checker ran and is
// valid, and every checker that fires is one the scenario's expectation
// tolerates (the properties the fault takes away from any lease lock, not
// the bystanders it must leave alone, nor a fenced lock's fences). The
// checkers the expectation requires to fire need not: a run may meet its
// fault at a moment that breaks nothing.
func require(sc scenario.Scenario, subj subject.Subject) requirement {
	e := sc.Expectation(subj)
	if sc.Safe || e.Verdict == model.Valid {
		return requirement{must: e}
	}
	return requirement{
		must: scenario.Expect{Label: "within the fault's allowance", Checkers: map[string]model.Verdict{
			model.CheckAllowance: model.Valid,
		}},
		tolerates: &e,
	}
}

// match reports whether rep meets r, and if not, why.
func (r requirement) match(rep model.Report) (bool, string) {
	ok, why := r.must.Match(rep)
	if r.tolerates == nil {
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
	tolerated := r.tolerates.Tolerated(ran, false)
	for _, res := range rep.Results {
		if res.Verdict == model.Invalid && res.Checker != model.CheckAllowance && !slices.Contains(tolerated, res.Checker) {
			whys = append(whys, res.Checker+" invalid, which this fault must leave alone")
		}
	}
	return len(whys) == 0, strings.Join(whys, "; ")
}

// label is the requirement in a few words.
func (r requirement) label() string { return r.must.Label }

// judge is the hunt's judge of a scenario's run: require(sc, subj)'s.
func judge(subj subject.Subject) func(sc scenario.Scenario, rep model.Report) (bool, string) {
	return func(sc scenario.Scenario, rep model.Report) (bool, string) {
		r := require(sc, subj)
		ok, why := r.match(rep)
		if !ok {
			why = fmt.Sprintf("%s (required: %s)", why, r.label())
		}
		return ok, why
	}
}

// explain renders rep for a failure's message, the fault-allowance
// checker's result first when it fired: its examples say what went beyond
// the fault's allowance and why no fault allows it.
func explain(rep model.Report) string {
	r, ok := rep.Result(model.CheckAllowance)
	if !ok || r.Verdict != model.Invalid {
		return rep.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\nbeyond the fault's allowance (what no fault allows a correct lease lock):\n%s", rep.Verdict, r.String())
	if rep.Unfinished != "" {
		fmt.Fprintf(&b, "incomplete: the history is a prefix of a run that did not finish (%s)\n", rep.Unfinished)
	}
	b.WriteString("the other checkers:\n")
	for _, res := range rep.Results {
		if res.Checker != model.CheckAllowance {
			b.WriteString(res.String())
		}
	}
	return b.String()
}
