package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

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
// each in a new results/runs/<scenario>/<time>-<n>-<seed>-<subject> that
// records the expectation (expect.json), exit 0 when every verdict is the
// expected one.
func runScenarioCmd(ctx context.Context, e *env, fs *flag.FlagSet, f *runFlags) (int, error) {
	sc, subjects, err := f.scenarioRun(fs)
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("run") {
		return exitValid, nil
	}
	ctx, closeEngine, err := f.engine.open(ctx, e.stderr, f.redis != "")
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
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
		sum, dir, c, err := runScenarioSubject(ctx, e, f, sc, subj, status)
		if err != nil {
			return exitUsage, err
		}
		if dir == "" {
			continue // skipped
		}
		code = max(code, c)
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

// newScenarioDir creates the run directory of subject on scenario
// (<out>/runs/<scenario>/<time>-<n>-<seed>-<subject>) and records in it
// what the run expects (expect.json), so that its summary and a re-check
// judge the run as the run does.
func newScenarioDir(out, scenarioName, subject string, seed int64, exp scenario.Expect) (string, error) {
	dir, err := results.NewRunDir(out, scenarioName, time.Now(), seed, subject)
	if err != nil {
		return "", err
	}
	return dir, results.WriteExpectation(dir, expectation(scenarioName, subject, exp))
}

// expectation is exp, the expectation of scenario for subject, as a run
// directory records it.
func expectation(scenarioName, subject string, exp scenario.Expect) results.Expectation {
	return results.Expectation{
		Scenario: scenarioName, Subject: subject, Label: exp.Label, Verdict: exp.Verdict,
		Checkers: exp.Checkers, Quiet: exp.Quiet, MayBreak: exp.MayBreak,
	}
}

// scenarioRun checks the flags of `run --scenario` and returns the
// scenario (with --plan and --threads applied) and the subjects.
func (f *runFlags) scenarioRun(fs *flag.FlagSet) (scenario.Scenario, []subject.Subject, error) {
	for _, name := range []string{"workload", "persistence", "clients", "watchdog-lease"} {
		if flagSet(fs, name) {
			return scenario.Scenario{}, nil, usagef("--%s cannot be combined with --scenario: the scenario fixes it", name)
		}
	}
	sc, err := f.lookupScenario()
	if err != nil {
		return scenario.Scenario{}, nil, err
	}
	if f.givenPlan != nil {
		sc.Plan = *f.givenPlan // --plan: the scenario's topology and faults, this plan
	}
	if f.threads > 0 {
		sc.Plan.ThreadsPerProcess = f.threads
	}
	subjects, err := lookupSubjects(f.subjects)
	if err != nil {
		return scenario.Scenario{}, nil, err
	}
	if f.duration < 0 || f.checkTime < 0 {
		return scenario.Scenario{}, nil, usagef("--duration and --check-timeout must not be negative")
	}
	return sc, subjects, nil
}

// runScenarioSubject runs subj under sc as f asks, says on status
// whether its verdict is the expected one, and returns its summary, its
// run directory ("": skipped, as said on status) and its exit status:
// exitInvalid when not as expected, exitUsage when the run did not get its
// faults. The error is one that left no run.
func runScenarioSubject(ctx context.Context, e *env, f *runFlags, sc scenario.Scenario, subj subject.Subject, status io.Writer) (results.Summary, string, int, error) {
	exp := sc.Expectation(subj)
	if exp.Skip != "" {
		fmt.Fprintf(status, "%s on %s: skipped (%s)\n", subj.Name, sc.Name, exp.Skip)
		return results.Summary{}, "", exitValid, nil
	}
	dir, err := newScenarioDir(f.out, sc.Name, subj.Name, f.seed, exp)
	if err != nil {
		return results.Summary{}, "", exitUsage, err
	}
	sum, got, degraded, err := runScenario(ctx, e, sc, subj.Name, f.seed, f.duration, f.checkTime, dir)
	if err != nil {
		dropEmptyRun(ctx, e.stderr, dir)
		return results.Summary{}, "", exitUsage, err
	}
	ok, why := exp.Match(sum.Report)
	switch {
	case interrupted(ctx):
		fmt.Fprintf(status, "%s on %s: interrupted (verdict %s on a prefix of the run; expected %s): nothing decided\n", subj.Name, sc.Name, sum.Verdict(), exp.Label)
	case degraded != nil:
		fmt.Fprintf(e.stderr, "lockcheck run: %s: the run did not get its faults: %v\n", subj.Name, degraded)
		return sum, got, exitUsage, nil
	case !ok:
		fmt.Fprintf(status, "%s on %s: NOT as expected (%s): %s\n", subj.Name, sc.Name, exp.Label, why)
		return sum, got, exitInvalid, nil
	default:
		fmt.Fprintf(status, "%s on %s: as expected (%s)\n", subj.Name, sc.Name, exp.Label)
	}
	return sum, got, exitValid, nil
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
		if s, ok := scenario.Named(n); ok {
			out = append(out, s) // a kind with a runner of its own (a semaphore, a latch), by name
			continue
		}
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

// discard is an io.Writer that drops everything (per-run chatter of nightly).
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
