package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// runJob is a `run` command line checked once, with every run in it
// resolved once: one cell per subject, each run through scenario.RunInto
// (the one run path of every object kind, the matrix's: a run is a
// one-cell matrix) in one world, a scenario's or the one Redis of --redis
// (or that lockcheck starts).
type runJob struct {
	cells []runCell
	// sc is the scenario the cells run under (nil: on one Redis).
	sc *scenario.Scenario
	// persistence is that of the Redis lockcheck starts (sc nil).
	persistence faults.Persistence
	// header is the first line on stderr, given where the runs go.
	header func(where string) string
	// expect: the exit status says whether each verdict is its cell's
	// expectation, not what the verdicts are (exitFor).
	expect bool
}

// runCell is one subject's run of a job.
type runCell struct {
	subj subject.Subject
	// run is its run: subject, seed, duration, check timeout and, for a
	// lock on one Redis, its resolved configuration; the world is the job's.
	run scenario.Run
	// planned is how long the run lasts, for the progress line.
	planned time.Duration
	// name and suffix name its run directory (results.NewRunDir).
	name, suffix string
	// exp, if set, is what its verdict must be (recorded in expect.json).
	exp *scenario.Expect
}

// run opens j's world, runs its cells one after another, prints their
// summaries and returns the exit status.
func (j *runJob) run(ctx context.Context, e *env, f *runFlags) (int, error) {
	for _, c := range j.cells {
		if err := scenario.Ready(ctx, c.subj); err != nil {
			return exitUsage, fmt.Errorf("--subject %s cannot run here: %w", c.subj.Name, err)
		}
	}
	ctx, closeEngine, err := f.engine.open(ctx, e.stderr, f.redis != "")
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	world, where, closeWorld, err := j.open(ctx, f)
	if err != nil {
		return exitUsage, err
	}
	defer closeWorld()
	fmt.Fprintln(e.stderr, j.header(where))
	status := e.stdout
	if f.asJSON {
		status = e.stderr // stdout carries the JSON summaries alone
	}
	var sums []results.Summary
	var dirs []string
	code := exitValid
	for _, c := range j.cells {
		sum, dir, cc, err := c.runIn(ctx, e, world, f.out, status)
		if err != nil {
			return exitUsage, err
		}
		if dir == "" {
			continue // skipped
		}
		code, sums, dirs = max(code, cc), append(sums, sum), append(dirs, dir)
		if ctx.Err() != nil {
			break
		}
	}
	if !j.expect {
		code = exitFor(sums)
	}
	return finishRuns(ctx, e, sums, dirs, f.asJSON, code)
}

// open opens the world of j's runs: under j's scenario a world per run,
// else the Redis of f. It returns what the runs share (the scenario, or
// the Redis's Dial, description and dependencies), where they go, and
// the closer.
func (j *runJob) open(ctx context.Context, f *runFlags) (scenario.Run, string, func(), error) {
	if j.sc != nil {
		return scenario.Run{Scenario: j.sc}, "scenario " + j.sc.Name + " (a world of its own per run)", func() {}, nil
	}
	tgt, err := f.openTarget(ctx, j.persistence)
	if err != nil {
		return scenario.Run{}, "", nil, err
	}
	tgt.Wired = f.wire
	w := scenario.Run{Dial: tgt.Dial, Redis: tgt.Desc, Deps: tgt.Deps()}
	return w, "against " + tgt.Desc, func() { tgt.Close() }, nil
}

// runIn runs c in world into a new run directory under out and says on
// status whether its verdict is the expected one. It returns its summary,
// its run directory ("": skipped, as said on status) and its exit status:
// under an expectation, exitInvalid when not as expected and exitUsage when
// the run did not get its faults. The error is one that left no run.
func (c runCell) runIn(ctx context.Context, e *env, world scenario.Run, out string, status io.Writer) (results.Summary, string, int, error) {
	if c.exp != nil && c.exp.Skip != "" {
		fmt.Fprintf(status, "%s on %s: skipped (%s)\n", c.subj.Name, world.Scenario.Name, c.exp.Skip)
		return results.Summary{}, "", exitValid, nil
	}
	dir, err := c.newDir(out)
	if err != nil {
		return results.Summary{}, "", exitUsage, err
	}
	r := c.run
	r.Scenario, r.Dial, r.Redis, r.Deps = world.Scenario, world.Dial, world.Redis, world.Deps
	got, err := runInto(ctx, e, c.subj, r, c.planned, dir)
	if err != nil {
		dropEmptyRun(ctx, e.stderr, dir)
		return results.Summary{}, "", exitUsage, fmt.Errorf("%s: %w", c.subj.Name, err)
	}
	if c.exp == nil {
		return got.Summary, got.Dir, exitValid, nil
	}
	return got.Summary, got.Dir, c.judge(ctx, e, got, world.Scenario.Name, status), nil
}

// newDir creates c's run directory under out, with its expectation when
// it has one.
func (c runCell) newDir(out string) (string, error) {
	dir, err := results.NewRunDir(out, c.name, time.Now(), c.run.Seed, c.suffix)
	if err != nil || c.exp == nil {
		return dir, err
	}
	return dir, results.WriteExpectation(dir, expectation(c.name, c.subj.Name, *c.exp))
}

// judge says on status whether got's verdict is c's expectation under the
// scenario sc and returns the exit status that says so.
func (c runCell) judge(ctx context.Context, e *env, got workloads.RunOutcome, sc string, status io.Writer) int {
	sum, exp := got.Summary, *c.exp
	ok, why := exp.Match(sum.Report)
	switch {
	case interrupted(ctx):
		fmt.Fprintf(status, "%s on %s: interrupted (verdict %s on a prefix of the run; expected %s): nothing decided\n", c.subj.Name, sc, sum.Verdict(), exp.Label)
	case got.Degraded != nil:
		fmt.Fprintf(e.stderr, "lockcheck run: %s: the run did not get its faults: %v\n", c.subj.Name, got.Degraded)
		return exitUsage
	case !ok:
		fmt.Fprintf(status, "%s on %s: NOT as expected (%s): %s\n", c.subj.Name, sc, exp.Label, why)
		return exitInvalid
	default:
		fmt.Fprintf(status, "%s on %s: as expected (%s)\n", c.subj.Name, sc, exp.Label)
	}
	return exitValid
}
