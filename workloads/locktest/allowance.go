package locktest

import (
	"fmt"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

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
