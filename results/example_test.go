package results_test

import (
	"os"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// A run's history and report become one row of the summary table.
func ExampleRender() {
	ms := int64(time.Millisecond)
	h := &model.History{Ops: []model.Op{
		{Process: 1, Lock: "L", Kind: model.Acquire, Call: 0, Return: 2 * ms, Blocking: true, Outcome: model.OK},
		{Process: 2, Lock: "L", Kind: model.Acquire, Call: ms, Return: 11 * ms, Wait: 10 * ms, Outcome: model.Fail},
		{Process: 1, Lock: "L", Kind: model.Release, Call: 20 * ms, Return: 21 * ms, Outcome: model.OK},
		{Process: 2, Lock: "L", Kind: model.Acquire, Call: 22 * ms, Return: 25 * ms, Blocking: true, Outcome: model.OK},
		{Process: 2, Lock: "L", Kind: model.Release, Call: 30 * ms, Return: 40 * ms, Outcome: model.OK},
	}}
	rep := model.Report{Verdict: model.Valid, Results: []model.Result{
		{Checker: model.CheckLinearizable, Verdict: model.Valid},
		{Checker: model.CheckLiveness, Verdict: model.Valid},
	}}
	sum := results.Summarize("reentrant", "", "mixed", 1, h, rep)
	_ = results.Render(os.Stdout, []results.Summary{sum})
	// Output:
	// ┌───────────┬──────────┬────────┬──────┬──────┬──────────┬─────────────┬─────┬─────┬──────────────┬──────────┬─────────┐
	// │  subject  │ workload │ ops ok │ fail │ info │ grants/s │ acquire p50 │ p99 │ max │ linearizable │ liveness │ verdict │
	// ├───────────┼──────────┼────────┼──────┼──────┼──────────┼─────────────┼─────┼─────┼──────────────┼──────────┼─────────┤
	// │ reentrant │ mixed    │      4 │    1 │    0 │     50.0 │         2ms │ 3ms │ 3ms │ valid        │ valid    │ valid   │
	// └───────────┴──────────┴────────┴──────┴──────┴──────────┴─────────────┴─────┴─────┴──────────────┴──────────┴─────────┘
}
