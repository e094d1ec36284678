package matrix

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/scenario"
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

// Exec runs c through scenario.RunInto, the one run path of every kind
// (a semaphore or latch runs its seed's own plan, as many rounds as fill
// Duration when set); a run that did not get its faults is an error.
func (x ScenarioExecutor) Exec(ctx context.Context, c scenario.Cell, key Key) (Ran, error) {
	r := scenario.Run{Subject: c.Subject.Name, Seed: c.Seed, Duration: x.Duration, CheckTimeout: x.CheckTimeout, Scenario: &c.Scenario}
	out, err := scenario.RunInto(ctx, c.Subject, r, key.In(x.Dir))
	ran := Ran{Report: out.Summary.Report, Recorded: out.Dir != ""}
	if err == nil && out.Degraded != nil {
		err = out.Degraded
	}
	return ran, err
}
