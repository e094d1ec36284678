package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// PermitsScenarios are the scenarios whose faults act on semaphores and
// latches (Scenario.Permits), in catalog order.
func PermitsScenarios() []Scenario {
	var out []Scenario
	for _, sc := range Catalog() {
		if sc.Permits {
			out = append(out, sc)
		}
	}
	return out
}

// ErrNotForPermits is returned by RunPermitsInto for a scenario whose
// faults do not act on semaphores and latches.
var ErrNotForPermits = errors.New("scenario: its faults do not apply to semaphores and latches")

// RunPermitsInto runs cfg (its subject, plan, check timeout and starts)
// under sc into run directory dir: sc's topology with a client per
// process of the plan, and sc's faults drawn from the plan's seed over the
// plan's length (permits.Plan.Length), acting on the workers ("w1" ..) as
// faults.Clients; it fills in cfg's Redis, Scenario, Nemesis and
// LossyFaults. The world is torn down before it returns. Its errors are
// the topology's and permits.RunInto's.
func (sc Scenario) RunPermitsInto(ctx context.Context, cfg permits.RunConfig, dir string) (workloads.RunOutcome, error) {
	if !sc.Permits {
		return workloads.RunOutcome{}, fmt.Errorf("%w: %s (they do: %v)", ErrNotForPermits, sc.Name, NamesOf(PermitsScenarios()))
	}
	env, err := sc.Topology(ctx, cfg.Plan.Workers+1)
	if err != nil {
		return workloads.RunOutcome{}, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	defer env.Close()
	cfg.Redis, cfg.Scenario, cfg.LossyFaults = env.Desc, sc.Name, sc.LossyFaults
	cfg.Nemesis = sc.permitsNemesis(env, cfg.Plan.Seed, cfg.Plan.Length(cfg.Subject))
	dial := func(i int) (redis.UniversalClient, error) { return env.Dial(ctx, i) }
	return permits.RunInto(ctx, dial, cfg, dir)
}

// permitsNemesis draws sc's faults for a permits run of the given length
// on env (nil when sc has none). Holders stays empty: a fault aimed at a
// holder falls back to its target drawn from the seed.
func (sc Scenario) permitsNemesis(env *Env, seed int64, length time.Duration) permits.Nemesis {
	if sc.Faults == nil {
		return nil
	}
	return func(c faults.Clients) (*faults.Nemesis, error) {
		return sc.nemesis(World{Env: env, Clients: c, Rand: faultRand(seed), Holders: newHolders(0), Duration: length})
	}
}

// permitsExpectation is what a correct semaphore or latch must show
// under sc: valid where sc's faults act on it, else a skip.
func (sc Scenario) permitsExpectation() Expect {
	if !sc.Permits {
		return Expect{Label: "skipped", Skip: "its faults do not act on semaphores and latches"}
	}
	return ExpectValid
}

// permitsRunner runs package permits' semaphores and latches (the
// registry's runner of subject kind permits): the seed's permits plan
// (permits.DefaultPlan), as many rounds as fill the run's duration when
// one is set.
type permitsRunner struct{}

func (permitsRunner) Named(name string) (subject.Subject, bool) { return permits.Named(name) }

func (permitsRunner) Expectation(sc Scenario, _ subject.Subject) Expect {
	return sc.permitsExpectation()
}

func (permitsRunner) Versions(name string) *subject.Versions { return permits.Versions(name) }

func (permitsRunner) Resolve(ctx context.Context, name string) error {
	_, err := permits.LookupContext(ctx, name)
	return err
}

func (permitsRunner) Ready(ctx context.Context, name string) error {
	s, err := permits.LookupContext(ctx, name)
	if err != nil {
		return err
	}
	return s.Check()
}

func (permitsRunner) RunInto(ctx context.Context, r Run, dir string) (workloads.RunOutcome, error) {
	subj, err := permits.LookupRunnable(ctx, r.Subject)
	if err != nil {
		return workloads.RunOutcome{}, err
	}
	plan := permits.DefaultPlan(r.Seed)
	if r.Duration > 0 {
		plan = plan.WithDuration(r.Duration)
	}
	cfg := permits.RunConfig{Subject: subj, Plan: plan, CheckTimeout: r.CheckTimeout, Starts: permits.DefaultStarts}
	if r.Scenario != nil {
		return r.Scenario.RunPermitsInto(ctx, cfg, dir)
	}
	cfg.Redis = r.Redis
	return permits.RunInto(ctx, func(i int) (redis.UniversalClient, error) { return r.Dial(ctx, i) }, cfg, dir)
}
