package main

import (
	"context"
	"flag"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
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

// finishRuns prints the runs' summaries and directories and returns the
// exit status: interrupted when ctx ended, else code.
func finishRuns(ctx context.Context, e *env, sums []results.Summary, dirs []string, asJSON bool, code int) (int, error) {
	if err := printSummaries(e, sums, dirs, asJSON); err != nil {
		return exitUsage, err
	}
	if interrupted(ctx) {
		reportInterrupted(e, "run", dirs, sums)
		return exitInterrupted, nil
	}
	return code, nil
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
