package matrix

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Key names one run of a matrix: "scenario/subject-seed" for a cell's run,
// with "-rerun-K" for its Kth rerun. It is the run's directory relative to
// the matrix's directory, with forward slashes, and it is what matrix.json
// records as the run's dir; only an Executor turns it into a path.
type Key string

// CellKey is the key of cell c's run, or (rerun > 0) of its rerun-th rerun.
func CellKey(c scenario.Cell, rerun int) Key {
	k := path.Join(c.Scenario.Name, c.Subject.Name+"-"+strconv.FormatInt(c.Seed, 10))
	if rerun > 0 {
		k += fmt.Sprintf("-rerun-%d", rerun)
	}
	return Key(k)
}

// In is the run's directory under the matrix's directory dir.
func (k Key) In(dir string) string { return filepath.Join(dir, filepath.FromSlash(string(k))) }

// Ran is what one run of a cell gave.
type Ran struct {
	// Report is the checkers' verdict.
	Report model.Report
	// Recorded says the run left its directory (history, result, summary)
	// under its key; the matrix links only recorded runs.
	Recorded bool
}

// Executor runs a matrix's cells. Run uses nothing else to run them, so a
// fake Executor tests the matrix without Redis.
type Executor interface {
	// Exec runs cell c once, as `lockcheck run --scenario` does, into the
	// run named key. An error means the run is no verdict (it could not be
	// made, or did not get its faults); Ran.Recorded may still be set.
	Exec(ctx context.Context, c scenario.Cell, key Key) (Ran, error)
}

// ScenarioExecutor runs each cell in its scenario's own topology (the
// redis-servers, proxies and faults it prepares), quietly, into the key's
// directory under Dir.
type ScenarioExecutor struct {
	// Dir is the matrix's directory (Config.Dir).
	Dir string
	// Duration and CheckTimeout override the scenario's (0: its own).
	Duration, CheckTimeout time.Duration
}

// Exec runs c; a run that did not get its faults is an error. A
// semaphore or latch (subject.KindPermits) runs its seed's permits plan
// (permits.DefaultPlan, as many rounds as fill Duration when set).
func (x ScenarioExecutor) Exec(ctx context.Context, c scenario.Cell, key Key) (Ran, error) {
	if c.Subject.Kind == subject.KindPermits {
		return x.execPermits(ctx, c, key)
	}
	p, err := c.Scenario.Prepare(ctx, scenario.Options{Subject: c.Subject.Name, Seed: c.Seed, Duration: x.Duration, CheckTimeout: x.CheckTimeout})
	if err != nil {
		return Ran{}, err
	}
	defer p.Close()
	out, err := workloads.RunInto(ctx, p.Config, key.In(x.Dir), p.Deps)
	ran := Ran{Report: out.Summary.Report, Recorded: out.Dir != ""}
	if err == nil && out.Degraded != nil {
		err = out.Degraded
	}
	return ran, err
}

// execPermits runs a semaphore or latch's cell, as `lockcheck run
// --scenario S --subject OBJECT --seed N` does.
func (x ScenarioExecutor) execPermits(ctx context.Context, c scenario.Cell, key Key) (Ran, error) {
	subj, err := permits.LookupRunnable(ctx, c.Subject.Name)
	if err != nil {
		return Ran{}, err
	}
	plan := permits.DefaultPlan(c.Seed)
	if x.Duration > 0 {
		plan = plan.WithDuration(x.Duration)
	}
	cfg := permits.RunConfig{Subject: subj, Plan: plan, CheckTimeout: x.CheckTimeout, Starts: permits.DefaultStarts}
	out, err := c.Scenario.RunPermitsInto(ctx, cfg, key.In(x.Dir))
	ran := Ran{Report: out.Summary.Report, Recorded: out.Dir != ""}
	if err == nil && out.Degraded != nil {
		err = out.Degraded
	}
	return ran, err
}
