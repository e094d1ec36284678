package hunt

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// ErrTopology marks a scenario whose topology could not be built here (a
// missing binary, no nftables), or whose set-up the subject's adapter
// refused (impl.ErrAdapter before anything ran: an older release's driver
// that cannot serve its topology or credentials): the hunt leaves the
// scenario out from then on and makes a plain run instead.
var ErrTopology = errors.New("topology unavailable")

// Trial is what one run of a draw showed.
type Trial struct {
	// Draw is what ran.
	Draw Draw
	// Report is the checkers' verdict.
	Report model.Report
	// Dir is the run directory (history.html, history.jsonl, ...).
	Dir string
	// Find says the verdict is one the subject must not get: for a plain
	// run invalid, for a scenario one that does not meet its expectation.
	// An unknown verdict is never a find.
	Find bool
	// Why says what was unexpected (set with Find).
	Why string
	// Degraded is set when the run happened but not as asked (its faults
	// or its history failed): its verdict is unknown.
	Degraded error
	// Elapsed is how long the run took.
	Elapsed time.Duration
}

// Executor runs a hunt's draws. Search and shrink use nothing else, so a
// fake Executor tests them without Redis.
type Executor interface {
	// Check reports whether d makes a valid run; a shrink step that
	// leads to a draw Check rejects is not taken.
	Check(d Draw) error
	// Exec runs d once into the fresh run directory dir and judges it:
	// the Trial's Report, Dir, Find, Why and Degraded (the hunt fills in
	// Draw and Elapsed). An error means no run to judge; one wrapping
	// ErrTopology says that d's scenario cannot run here.
	Exec(ctx context.Context, d Draw, dir string) (Trial, error)
}

// PlainConfig is the configuration of a plain run of plan for subject:
// what `lockcheck run --subject subject --seed seed --duration d --plan
// FILE` (FILE holding plan) runs, so the command a hunt prints reruns
// exactly what it ran.
func PlainConfig(subject string, seed int64, d time.Duration, plan workloads.Plan) (workloads.RunConfig, error) {
	cfg := workloads.DefaultRunConfig()
	cfg.Subject, cfg.Workload, cfg.Seed, cfg.Duration = subject, "hunt", seed, d
	if _, err := workloads.LookupWorkload(plan.Workload); err == nil {
		cfg.Workload = plan.Workload
	}
	cfg.MaxWait = model.WaitDerived
	cfg.Plan = &plan
	return cfg, cfg.Validate()
}

// redisExecutor runs plain draws on a target and scenarios in their own
// topology, as `lockcheck run` and `lockcheck run --scenario` do.
type redisExecutor struct {
	name     string          // the subject as named: one subject or an A+B mix
	subject  subject.Subject // name resolved
	tgt      *target.Target
	registry *subject.Registry
	obs      Observer
	judge    Judge // nil: by what the scenario requires (scenario.Judge)
	threads  int   // Config.ThreadsPerProcess, for scenarios (0: theirs)
	serve    subject.Server
	served   bool // every run serves the lock in processes (Config.Served)
}

// Judge says whether rep, the report of a run of sc, shows what the
// subject must show there; if not, why.
type Judge func(sc scenario.Scenario, rep model.Report) (ok bool, why string)

func (x *redisExecutor) Check(d Draw) error {
	if d.Scenario != nil {
		return nil
	}
	_, err := PlainConfig(x.name, d.Seed, d.Duration, d.Plan)
	return err
}

func (x *redisExecutor) Exec(ctx context.Context, d Draw, dir string) (Trial, error) {
	if d.Scenario != nil {
		return x.execScenario(ctx, d, dir)
	}
	return x.execPlain(ctx, d, dir)
}

// execPlain runs a plan on the target.
func (x *redisExecutor) execPlain(ctx context.Context, d Draw, dir string) (Trial, error) {
	cfg, err := PlainConfig(x.name, d.Seed, d.Duration, d.Plan)
	if err != nil {
		return Trial{}, err
	}
	cfg.Redis = x.tgt.Desc
	// The dependencies `lockcheck run` gives the same target (reconnects
	// included), so the printed command reruns the same thing.
	deps := x.tgt.Deps()
	deps.Registry = x.registry // the hunt's registry, whatever the caller's target holds
	if x.serve != nil {
		deps.Serve = x.serve
	}
	if x.served {
		cfg.Pauses = workloads.PausesProcess
	}
	out, err := workloads.RunInto(ctx, cfg, dir, deps)
	x.obs.Recorded(cfg.Subject, out, err)
	if err != nil {
		return Trial{}, err
	}
	t := Trial{Report: out.Summary.Report, Dir: out.Dir, Degraded: out.Degraded}
	if t.Report.Verdict == model.Invalid {
		t.Find, t.Why = true, invalidWhy(t.Report)
	}
	return t, nil
}

// execScenario runs a scenario as `lockcheck run --scenario` does, in its
// own topology, and judges it by the scenario's expectation.
func (x *redisExecutor) execScenario(ctx context.Context, d Draw, dir string) (Trial, error) {
	sc := *d.Scenario
	p, err := sc.Prepare(ctx, scenario.Options{
		Subject: x.subject.Name, Seed: d.Seed, Duration: d.Duration, Registry: x.registry, ThreadsPerProcess: x.threads,
		Serve: x.serve, Served: x.served,
	})
	if err != nil {
		if ctx.Err() != nil {
			return Trial{}, err
		}
		return Trial{}, fmt.Errorf("%w: %v", ErrTopology, err)
	}
	defer p.Close()
	out, err := p.Resolved.RunInto(ctx, dir, p.Deps)
	x.obs.Recorded(p.Config.Subject, out, err)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, impl.ErrAdapter) {
			// The subject's adapter refused the scenario's set-up (a
			// driver that cannot serve its topology or its credentials,
			// say an older release's): nothing ran, and nothing will.
			return Trial{}, fmt.Errorf("%w: %s cannot run it: %w", ErrTopology, x.subject.Name, err)
		}
		return Trial{}, err
	}
	t := Trial{Report: out.Summary.Report, Dir: out.Dir, Degraded: out.Degraded}
	if t.Degraded == nil && t.Report.Verdict != model.Unknown {
		t.Find, t.Why = judgeScenario(sc, x.subject, t.Report, x.judge)
	}
	return t, nil
}

// invalidWhy is a plain run's find: the checkers that said invalid.
func invalidWhy(rep model.Report) string {
	return "invalid (" + strings.Join(rep.InvalidCheckers(), ", ") + ")"
}

// judgeScenario says whether rep, of a run of sc, is a find: by judge, or
// (nil) by what sc requires of subj as the lock it claims to be
// (scenario.Judge).
func judgeScenario(sc scenario.Scenario, subj subject.Subject, rep model.Report, judge Judge) (bool, string) {
	if judge != nil {
		if ok, why := judge(sc, rep); !ok {
			return true, fmt.Sprintf("%s, not as required: %s", rep.Verdict, why)
		}
		return false, ""
	}
	if ok, why := scenario.Judge(sc, subj, rep); !ok {
		return true, fmt.Sprintf("%s, not as required: %s", rep.Verdict, why)
	}
	return false, ""
}
