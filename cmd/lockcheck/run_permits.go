package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// permitsRunFlags are the `run` flags a run of semaphores and latches
// takes; the others belong to the lock runner.
var permitsRunFlags = []string{"subject", "workload", "seed", "duration", "redis", "persistence", "scenario", "out", "json", "check-timeout"}

// routesToPermits reports whether `run --subject names` runs semaphores
// and latches (workloads/permits) rather than locks; an error when names
// mixes both.
func routesToPermits(names []string) (bool, error) {
	var sems, locks []string
	for _, n := range names {
		if scenario.Known(n) {
			sems = append(sems, n)
		} else {
			locks = append(locks, n)
		}
	}
	if len(sems) > 0 && len(locks) > 0 {
		return false, usagef("--subject: %s run semaphores or latches, %s locks: run them separately", strings.Join(sems, ","), strings.Join(locks, ","))
	}
	return len(sems) > 0, nil
}

// runPermitsCmd runs each subject of f, a semaphore or latch of
// workloads/permits, into a run directory of its own
// (<out>/runs/permits-<subject>/<time>-<n>-<seed>): on one Redis, or under
// --scenario in that scenario's world and faults, a world per run.
func runPermitsCmd(ctx context.Context, e *env, fs *flag.FlagSet, f *runFlags) (int, error) {
	plan, err := f.permitsPlan(fs)
	if err != nil {
		return exitUsage, err
	}
	sc, err := f.permitsScenario(fs)
	if err != nil {
		return exitUsage, err
	}
	subjects, err := lookupPermits(ctx, splitList(f.subjects))
	if err != nil {
		return exitUsage, err
	}
	if e.validateOnly {
		e.stopValidated("run")
		return exitValid, nil
	}
	for _, s := range subjects {
		if err := s.Check(); err != nil {
			return exitUsage, fmt.Errorf("--subject %s cannot run here: %w", s.Name, err)
		}
	}
	base, desc, closeRun, err := f.openPermits(ctx, sc)
	if err != nil {
		return exitUsage, err
	}
	defer closeRun()
	handovers := ""
	if plan.Handovers > 0 {
		handovers = fmt.Sprintf(" (a semaphore's then %v of handovers)", plan.Handovers)
	}
	fmt.Fprintf(e.stderr, "lockcheck run: seed %d, workload %s, %d rounds of %v each%s, %s\n",
		f.seed, permits.Workload, plan.Rounds, plan.RoundLength(), handovers, desc)
	var sums []results.Summary
	var dirs []string
	for _, subj := range subjects {
		dir, err := results.NewRunDir(f.out, permits.Workload+"-"+subj.Name, time.Now(), plan.Seed, "")
		if err != nil {
			return exitUsage, err
		}
		out, err := runKind(ctx, base, subj.Name, dir)
		for _, w := range out.Warnings {
			fmt.Fprintf(e.stderr, "lockcheck run: %s: warning: %s\n", subj.Name, w)
		}
		if err != nil {
			dropEmptyRun(ctx, e.stderr, dir)
			return exitUsage, fmt.Errorf("%s: %w", subj.Name, err)
		}
		if out.WriteErr != nil {
			fmt.Fprintf(e.stderr, "lockcheck run: writing %s: %v\n", out.Dir, out.WriteErr)
		}
		sums, dirs = append(sums, out.Summary), append(dirs, out.Dir)
		if ctx.Err() != nil {
			break
		}
	}
	return finishRuns(ctx, e, sums, dirs, f.asJSON)
}

// runKind runs the subject name, of a kind with a runner of its own
// (scenario.RunnerOf), as base asks (its seed, duration, check timeout,
// and its scenario or its Redis) into dir.
func runKind(ctx context.Context, base scenario.Run, name, dir string) (workloads.RunOutcome, error) {
	s, ok := scenario.Named(name)
	r, has := scenario.RunnerOf(s)
	if !ok || !has {
		return workloads.RunOutcome{}, fmt.Errorf("%w: %s", subject.ErrUnknown, name)
	}
	base.Subject = name
	return r.RunInto(ctx, base, dir)
}

// permitsScenario checks --scenario, --redis and --persistence: the
// scenario to run under (nil: none, on one Redis).
func (f *runFlags) permitsScenario(fs *flag.FlagSet) (*scenario.Scenario, error) {
	if _, err := faults.ParsePersistence(f.persistence); err != nil {
		return nil, usagef("--persistence: %v", err)
	}
	if f.scenario == "" {
		return nil, nil
	}
	if flagSet(fs, "redis") || flagSet(fs, "persistence") {
		return nil, usagef("--scenario %s builds its own Redis: drop --redis and --persistence", f.scenario)
	}
	sc, err := scenario.Lookup(f.scenario)
	if err != nil {
		return nil, usagef("--scenario: %v", err)
	}
	if !sc.Permits {
		return nil, usagef("--scenario: %v: %s (see 'lockcheck scenarios')", scenario.ErrNotForPermits, sc.Name)
	}
	return &sc, nil
}

// openPermits opens the world of the runs: the one Redis of --redis (or
// one lockcheck starts), or under sc a world per run (sc's topology and
// faults). It returns the runs' settings (seed, duration, check timeout,
// and the scenario or the Redis), the world's description and its closer.
func (f *runFlags) openPermits(ctx context.Context, sc *scenario.Scenario) (scenario.Run, string, func(), error) {
	base := scenario.Run{Seed: f.seed, Duration: f.duration, CheckTimeout: f.checkTime, Scenario: sc}
	if sc != nil {
		return base, "scenario " + sc.Name + " (a world of its own per run)", func() {}, nil
	}
	persistence, _ := faults.ParsePersistence(f.persistence) // checked by permitsScenario
	tgt, err := openTarget(ctx, f.redis, persistence)
	if err != nil {
		return base, "", nil, err
	}
	base.Redis, base.Dial = tgt.Desc, tgt.Dial
	return base, "against " + tgt.Desc, func() { tgt.Close() }, nil
}

// finishRuns prints the runs' summaries and directories and returns the
// exit status: interrupted when ctx ended, else exitFor's.
func finishRuns(ctx context.Context, e *env, sums []results.Summary, dirs []string, asJSON bool) (int, error) {
	if err := printSummaries(e, sums, dirs, asJSON); err != nil {
		return exitUsage, err
	}
	if interrupted(ctx) {
		reportInterrupted(e, "run", dirs, sums)
		return exitInterrupted, nil
	}
	return exitFor(sums), nil
}

// permitsPlan checks the flags of a permits run and returns its plan: the
// seed's default plan, with as many rounds as fill --duration when given.
// It draws the seed from the clock when --seed is not given.
func (f *runFlags) permitsPlan(fs *flag.FlagSet) (permits.Plan, error) {
	var stray []string
	fs.Visit(func(fl *flag.Flag) {
		if !slices.Contains(permitsRunFlags, fl.Name) {
			stray = append(stray, "--"+fl.Name)
		}
	})
	if len(stray) > 0 {
		return permits.Plan{}, usagef("%s: not for semaphores and latches (their runs take --%s)", strings.Join(stray, " "), strings.Join(permitsRunFlags, " --"))
	}
	if f.workload != "" && f.workload != permits.Workload {
		return permits.Plan{}, usagef("--workload %s: semaphores and latches run the %s workload only", f.workload, permits.Workload)
	}
	if f.duration < 0 || f.checkTime < 0 {
		return permits.Plan{}, usagef("--duration and --check-timeout must not be negative")
	}
	if f.seed == 0 {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	plan := permits.DefaultPlan(f.seed)
	if f.duration > 0 {
		plan = plan.WithDuration(f.duration)
	}
	return plan, nil
}

// lookupPermits resolves names (NAME@VERSION builds that release when it
// is not in the cache yet).
func lookupPermits(ctx context.Context, names []string) ([]permits.Subject, error) {
	var out []permits.Subject
	for _, n := range names {
		s, err := permits.LookupContext(ctx, n)
		if err != nil {
			if errors.Is(err, subject.ErrRelease) || errors.Is(err, subject.ErrUnknown) {
				return nil, usagef("--subject: %v", err)
			}
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
