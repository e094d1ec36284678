package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// referenceSubjects are the lock kinds nightly runs by default (a subject a
// scenario's topology cannot run is skipped there: redlock runs only on the
// redlock topology, reentrant-wait only on Sentinel).
const referenceSubjects = "reentrant,fair,fenced,simple,redlock,reentrant-wait"

// runScenarioCmd is `lockcheck run --scenario NAME`: one run per subject,
// each in results/runs/<scenario>/<time>-<seed>-<subject>, exit 0 when every
// verdict is the expected one.
func runScenarioCmd(ctx context.Context, e *env, fs *flag.FlagSet, f *runFlags) (int, error) {
	for _, name := range []string{"workload", "persistence", "clients", "watchdog-lease"} {
		if flagSet(fs, name) {
			return exitUsage, usagef("--%s cannot be combined with --scenario: the scenario fixes it", name)
		}
	}
	sc, err := f.lookupScenario()
	if err != nil {
		return exitUsage, err
	}
	if f.givenPlan != nil {
		sc.Plan = *f.givenPlan // --plan: the scenario's topology and faults, this plan
	}
	subjects, err := lookupSubjects(f.subjects)
	if err != nil {
		return exitUsage, err
	}
	if f.duration < 0 || f.checkTime < 0 {
		return exitUsage, usagef("--duration and --check-timeout must not be negative")
	}
	if f.seed == 0 {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	fmt.Fprintf(e.stderr, "lockcheck run: scenario %s, seed %d\n", sc.Name, f.seed)
	var sums []results.Summary
	var dirs []string
	code := exitValid
	// With --json, stdout carries the JSON summaries alone.
	status := e.stdout
	if f.asJSON {
		status = e.stderr
	}
	for _, subj := range subjects {
		if skip := sc.Expectation(subj).Skip; skip != "" {
			fmt.Fprintf(status, "%s on %s: skipped (%s)\n", subj.Name, sc.Name, skip)
			continue
		}
		dir := results.RunDir(f.out, sc.Name, time.Now(), f.seed) + "-" + subj.Name
		sum, dir, degraded, err := runScenario(ctx, e, sc, subj.Name, f.seed, f.duration, f.checkTime, dir)
		if err != nil {
			return exitUsage, err
		}
		exp := sc.Expectation(subj)
		ok, why := exp.Match(sum.Report)
		switch {
		case interrupted(ctx):
			fmt.Fprintf(status, "%s on %s: interrupted (verdict %s on a prefix of the run; expected %s): nothing decided\n", subj.Name, sc.Name, sum.Verdict(), exp.Label)
		case degraded != nil:
			fmt.Fprintf(e.stderr, "lockcheck run: %s: the run did not get its faults: %v\n", subj.Name, degraded)
			code = exitUsage
		case !ok:
			fmt.Fprintf(status, "%s on %s: NOT as expected (%s): %s\n", subj.Name, sc.Name, exp.Label, why)
			code = max(code, exitInvalid)
		default:
			fmt.Fprintf(status, "%s on %s: as expected (%s)\n", subj.Name, sc.Name, exp.Label)
		}
		sums = append(sums, sum)
		dirs = append(dirs, dir)
		if ctx.Err() != nil {
			break
		}
	}
	if err := printSummaries(e, sums, dirs, f.asJSON); err != nil {
		return exitUsage, err
	}
	if interrupted(ctx) {
		reportInterrupted(e, "run", dirs, sums)
		return exitInterrupted, nil
	}
	return code, nil
}

// runScenario runs one subject on sc into dir.
func runScenario(ctx context.Context, e *env, sc scenario.Scenario, subject string, seed int64, d, checkTimeout time.Duration, dir string) (results.Summary, string, error, error) {
	p, err := sc.Prepare(ctx, scenario.Options{Subject: subject, Seed: seed, Duration: d, CheckTimeout: checkTimeout})
	if err != nil {
		return results.Summary{}, "", nil, err
	}
	defer p.Close()
	return runIn(ctx, e, p.Config, dir, p.Deps)
}

func lookupSubjects(list string) ([]subject.Subject, error) {
	var out []subject.Subject
	for _, n := range splitList(list) {
		s, err := catalog.Subjects.Lookup(n)
		if err != nil {
			return nil, usagef("--subject: %v", err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usagef("--subject: no subject named")
	}
	return out, nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

const nightlyExamples = `  lockcheck nightly                                   # every scenario × reentrant, fair, fenced, simple, redlock, reentrant-wait × 3 seeds
  lockcheck nightly --seeds 5 --subjects reentrant,fair
  lockcheck nightly --scenarios client-stall,partition-long --subjects mutant-check-then-set
  lockcheck nightly --seeds 20 --shard 2/4 --out shard-2   # one of 4 machines; merge with lockcheck report
`

func nightlyCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "nightly", "nightly [flags]", nightlyExamples)
	nseeds := fs.Int("seeds", 3, "seeds per scenario × subject (1..N)")
	subjList := fs.String("subjects", referenceSubjects, "comma-separated subjects")
	scList := fs.String("scenarios", "", "comma-separated scenarios (default: all, see 'lockcheck scenarios')")
	out := fs.String("out", "results", "base directory: runs go to <out>/runs/nightly/<time>/")
	duration := fs.Duration("duration", 0, "length of each run (default: the scenario's)")
	checkTime := fs.Duration("check-timeout", 0, "bound on each linearizability check (default 60s)")
	shardFlag := fs.String("shard", "", "run only shard I of N of the cells (I/N, 1 <= I <= N; a cell's shard is a hash of scenario, subject and seed)")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	shard, err := scenario.ParseShard(*shardFlag)
	if err != nil {
		return exitUsage, usagef("--shard: %v", err)
	}
	if *nseeds < 1 {
		return exitUsage, usagef("--seeds: %d, want >= 1", *nseeds)
	}
	if *duration < 0 || *checkTime < 0 {
		return exitUsage, usagef("--duration and --check-timeout must not be negative")
	}
	subjects, err := lookupSubjects(*subjList)
	if err != nil {
		return exitUsage, err
	}
	scs := scenario.Catalog()
	if *scList != "" {
		scs = nil
		for _, n := range splitList(*scList) {
			sc, err := scenario.Lookup(n)
			if err != nil {
				return exitUsage, usagef("--scenarios: %v", err)
			}
			scs = append(scs, sc)
		}
	}
	seeds := make([]int64, *nseeds)
	for i := range seeds {
		seeds[i] = int64(i + 1)
	}
	start := time.Now()
	base := filepath.Join(*out, "runs", "nightly", start.UTC().Format("20060102T150405")+shardSuffix(shard))
	if err := os.MkdirAll(base, 0o755); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stderr, "lockcheck nightly: %d scenarios × %d subjects × %d seeds%s into %s\n", len(scs), len(subjects), len(seeds), shardNote(shard), base)
	quiet := &env{stdout: discard{}, stderr: discard{}}
	walls := &cellWalls{}
	stopped := &interruptedCells{}
	run := func(ctx context.Context, c scenario.Cell) (model.Report, string, error) {
		defer walls.time(c)()
		dir := filepath.Join(base, c.Scenario.Name, c.Subject.Name+"-"+strconv.FormatInt(c.Seed, 10))
		sum, dir, degraded, err := runScenario(ctx, quiet, c.Scenario, c.Subject.Name, c.Seed, *duration, *checkTime, dir)
		if err == nil && degraded != nil {
			err = degraded
		}
		if interrupted(ctx) {
			stopped.mark(c)
		}
		return sum.Report, dir, err
	}
	done := func(o scenario.Outcome) {
		stopped.say(&o)
		status := "as expected"
		if o.Expect.Skip != "" {
			status = "skipped: " + o.Expect.Skip
		}
		if !o.OK {
			status = "NOT as expected: " + o.Why
		}
		fmt.Fprintf(e.stderr, "  %-24s %-10s seed %d: %-8s %s\n", o.Scenario.Name, o.Subject.Name, o.Seed, o.Report.Verdict, status)
	}
	outs := scenario.ShardMatrix(ctx, shard, scs, subjects, seeds, run, done)
	for i := range outs {
		stopped.say(&outs[i])
	}
	m := nightlyMatrix{base: base, shard: shard, start: start, outs: outs, walls: walls, interrupted: interrupted(ctx)}
	if err := m.write(); err != nil {
		return exitUsage, err
	}
	if err := scenario.WriteTable(e.stdout, outs, false); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stdout, "matrix: %s\n", filepath.Join(base, "matrix.md"))
	verr := scenario.Verdict(outs)
	switch {
	case interrupted(ctx):
		reportInterrupted(e, "nightly", []string{base}, nil)
		return exitInterrupted, nil
	case errors.Is(verr, scenario.ErrInfrastructure):
		fmt.Fprintf(e.stderr, "lockcheck nightly: %v\n", verr)
		return exitUsage, nil
	case verr != nil:
		fmt.Fprintf(e.stderr, "lockcheck nightly: %v\n", verr)
		return exitInvalid, nil
	}
	return exitValid, nil
}

// discard is an io.Writer that drops everything (per-run chatter of nightly).
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
