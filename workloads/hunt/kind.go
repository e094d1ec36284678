package hunt

import (
	"context"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// PermitsPlan is the lock plan of a draw of a subject whose kind has a
// runner of its own (scenario.RunnerOf: a semaphore, a latch): none (the
// runner draws its own from the seed), so that no shrink step but the
// duration's applies.
var PermitsPlan = workloads.Plan{Workload: permits.Workload}

// kindExecutor runs the draws of a subject whose kind has a runner of its
// own (scenario.RunnerOf), as `lockcheck run --subject OBJECT` does: the
// runner's seed plan for the draw's duration, on the target for a plain
// draw, under the scenario's faults in its own world for a scenario. It
// judges as redisExecutor does: a plain run is a find when invalid, a
// scenario run when not what the scenario expects.
type kindExecutor struct {
	name    string
	subject subject.Subject
	runner  scenario.Runner
	tgt     *target.Target
	obs     Observer
	judge   Judge
}

func (x *kindExecutor) Check(Draw) error { return nil }

func (x *kindExecutor) Exec(ctx context.Context, d Draw, dir string) (Trial, error) {
	r := scenario.Run{Subject: x.name, Seed: d.Seed, Duration: d.Duration, Scenario: d.Scenario}
	if d.Scenario == nil {
		r.Redis, r.Dial = x.tgt.Desc, x.tgt.Dial
	}
	out, err := x.runner.RunInto(ctx, r, dir)
	x.obs.Recorded(x.name, out, err)
	if err != nil {
		return Trial{}, err
	}
	t := Trial{Report: out.Summary.Report, Dir: out.Dir, Degraded: out.Degraded}
	switch {
	case t.Degraded != nil || t.Report.Verdict == model.Unknown:
	case d.Scenario != nil:
		t.Find, t.Why = judgeScenario(*d.Scenario, x.subject, t.Report, x.judge)
	case t.Report.Verdict == model.Invalid:
		t.Find, t.Why = true, invalidWhy(t.Report)
	}
	return t, nil
}
