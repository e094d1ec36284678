package hunt

import (
	"context"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// PermitsPlan is the lock plan of a semaphore's or latch's draw: none (the
// permits runner draws its own from the seed), so that no shrink step but
// the duration's applies.
var PermitsPlan = workloads.Plan{Workload: permits.Workload}

// permitsExecutor runs the draws of a semaphore or latch (a
// subject.KindPermits subject) in the permits runner, as `lockcheck run
// --subject OBJECT` does: the seed's permits plan with as many rounds as
// fill the draw's duration (permits.Plan.WithDuration), on the target for
// a plain draw, under the scenario's faults in its own world for a
// scenario. It judges as redisExecutor does: a plain run is a find when
// invalid, a scenario run when not valid (the expectation of every such
// object wherever a scenario's faults act on it).
type permitsExecutor struct {
	name    string
	subject subject.Subject
	tgt     *target.Target
	obs     Observer
	judge   Judge
}

func (x *permitsExecutor) Check(Draw) error { return nil }

func (x *permitsExecutor) Exec(ctx context.Context, d Draw, dir string) (Trial, error) {
	subj, err := permits.LookupRunnable(ctx, x.name)
	if err != nil {
		return Trial{}, err
	}
	cfg := permits.RunConfig{Subject: subj, Plan: permits.DefaultPlan(d.Seed).WithDuration(d.Duration), Starts: permits.DefaultStarts}
	var out workloads.RunOutcome
	if d.Scenario != nil {
		out, err = d.Scenario.RunPermitsInto(ctx, cfg, dir)
	} else {
		cfg.Redis = x.tgt.Desc
		dial := func(i int) (redis.UniversalClient, error) { return x.tgt.Dial(ctx, i) }
		out, err = permits.RunInto(ctx, dial, cfg, dir)
	}
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
