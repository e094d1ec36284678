// Package matrix runs a nightly or scoreboard matrix: every scenario ×
// subject × seed of a shard, one cell at a time, each judged by its
// scenario's expectation, each cell that breaks a property its lock claims
// rerun from its seed, and matrix.json rewritten after every cell so that
// a run that dies leaves the cells it finished. Publish merges the
// matrices of one scoreboard's parts into the committed page.
//
// Run works over an Executor (by default one that runs each cell in its
// scenario's topology) and reports progress through an Observer; it
// prints nothing. Runs are named by Key, relative to the matrix's
// directory; only the Executor turns a key into a path.
package matrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ErrConfig marks a Config that cannot run; the error names the field.
var ErrConfig = errors.New("matrix: bad config")

// Kinds of matrix (Config.Kind).
const (
	Nightly    = "nightly"
	Scoreboard = "scoreboard"
)

// Config is one matrix run (or one shard of it).
type Config struct {
	// Kind is Nightly or Scoreboard: matrix.json records it.
	Kind      string
	Scenarios []scenario.Scenario
	Subjects  []subject.Subject
	// Seeds are the seeds of every scenario × subject (required);
	// SeedBase is what they were counted from (recorded, not used).
	Seeds    []int64
	SeedBase int64
	// Shard selects the cells to run (zero: all).
	Shard scenario.Shard
	// Duration and CheckTimeout are the run flags of every cell (0: the
	// scenario's duration, the default check timeout); a cell's command
	// repeats them.
	Duration, CheckTimeout time.Duration
	// Reruns is how many times a cell that breaks a property its lock
	// claims runs again from its seed (>= 0).
	Reruns int
	// Engine are the flags that chose the server and backend ("
	// --server redis-6.2"): every cell's command repeats them, so a
	// finding reruns where it was found. Server names that server for
	// the record (matrix.json, the title; "": the default). The servers
	// themselves come from the ctx Run is given.
	Engine, Server string
	// Dir is the matrix's directory (required, created): matrix.json,
	// matrix.md and the runs under their keys.
	Dir string
	// Executor runs the cells (nil: a ScenarioExecutor into Dir).
	Executor Executor
	// Observer hears the progress (nil: nothing).
	Observer Observer
	// Now is the clock of the wall times (nil: time.Now).
	Now func() time.Time
}

// check reports the first field that cannot run.
func (c *Config) check() error {
	switch {
	case c.Kind != Nightly && c.Kind != Scoreboard:
		return fmt.Errorf("%w: Kind %q, want %q or %q", ErrConfig, c.Kind, Nightly, Scoreboard)
	case len(c.Seeds) == 0:
		return fmt.Errorf("%w: no Seeds", ErrConfig)
	case c.Dir == "":
		return fmt.Errorf("%w: no Dir", ErrConfig)
	case c.Reruns < 0:
		return fmt.Errorf("%w: Reruns %d, want >= 0", ErrConfig, c.Reruns)
	case c.Duration < 0 || c.CheckTimeout < 0:
		return fmt.Errorf("%w: Duration and CheckTimeout must not be negative", ErrConfig)
	}
	return nil
}

// cells counts the cells of c's shard.
func (c *Config) cells() int {
	n := 0
	for _, sc := range c.Scenarios {
		for _, subj := range c.Subjects {
			for _, seed := range c.Seeds {
				if c.Shard.Has(sc.Name, subj.Name, seed) {
					n++
				}
			}
		}
	}
	return n
}

// Result is what a matrix run did.
type Result struct {
	// File is the matrix.json written last.
	File results.MatrixFile
	// Outcomes are the cells in the order they ran (reruns not included).
	Outcomes []scenario.Outcome
	// Interrupted says ctx ended before every cell ran.
	Interrupted bool
}

// Err is nil when every cell met its expectation, else an error wrapping
// scenario.ErrInfrastructure (a cell could not run) or
// scenario.ErrUnexpected.
func (r *Result) Err() error { return scenario.Verdict(r.Outcomes) }

// Run runs the cells of cfg's shard in order until they are done or ctx
// ends, and writes matrix.json (after every cell, and at the end) and
// matrix.md (at the end) into cfg.Dir. The error is one that left no
// matrix.json; the cells' own verdicts are in the Result.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	r := newRunner(cfg)
	r.obs.Started(Start{Kind: cfg.Kind, Scenarios: len(cfg.Scenarios), Subjects: len(cfg.Subjects), Seeds: cfg.Seeds, Shard: cfg.Shard, Cells: cfg.cells(), Dir: cfg.Dir})
	r.subjects = Describe(ctx, cfg.Subjects)
	outs := scenario.ShardMatrix(ctx, cfg.Shard, cfg.Scenarios, cfg.Subjects, cfg.Seeds, r.runCell, func(o scenario.Outcome) { r.done(ctx, o) })
	res := &Result{Outcomes: outs, Interrupted: ctx.Err() != nil}
	res.File = r.file(false, res.Interrupted)
	return res, r.write(res.File)
}

// runner is one Run: the cells so far and what the Executor said of them.
// Only Run's goroutine touches it.
type runner struct {
	cfg      Config
	exec     Executor
	obs      Observer
	now      func() time.Time
	start    time.Time
	subjects []results.SubjectInfo
	cells    []results.MatrixCell
	walls    map[Key]time.Duration
	stopped  map[Key]bool // cut short by ctx
	tries    map[Key]int  // the runs made of each cell (a second: scenario's retry)
}

func newRunner(cfg Config) *runner {
	r := &runner{cfg: cfg, exec: cfg.Executor, obs: cfg.Observer, now: cfg.Now, walls: map[Key]time.Duration{}, stopped: map[Key]bool{}, tries: map[Key]int{}}
	if r.exec == nil {
		r.exec = ScenarioExecutor{Dir: cfg.Dir, Duration: cfg.Duration, CheckTimeout: cfg.CheckTimeout}
	}
	if r.obs == nil {
		r.obs = NopObserver{}
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.start = r.now()
	return r
}

// runCell runs one cell under its key (scenario.RunCell); a cell run again
// after a run that could not be made (scenario's retry) runs under
// KEY-retry-N, the failed run's directory kept as it was.
func (r *runner) runCell(ctx context.Context, c scenario.Cell) (model.Report, string, error) {
	key := CellKey(c, 0)
	r.tries[key]++
	dir := key
	if n := r.tries[key]; n > 1 {
		dir = Key(fmt.Sprintf("%s-retry-%d", key, n-1))
	}
	start := r.now()
	ran, err := r.exec.Exec(ctx, c, dir)
	r.walls[key] = r.now().Sub(start)
	if ctx.Err() != nil {
		r.stopped[key] = true
	}
	if !ran.Recorded {
		return ran.Report, "", err
	}
	return ran.Report, string(dir), err
}

// done records a finished cell, reruns it if it broke a property its lock
// claims, and rewrites matrix.json.
func (r *runner) done(ctx context.Context, o scenario.Outcome) {
	c := r.cell(o)
	r.obs.Finished(c)
	if len(c.Findings()) > 0 && ctx.Err() == nil {
		for k := 1; k <= r.cfg.Reruns && ctx.Err() == nil; k++ {
			r.obs.Rerunning(c, k)
			c.Reruns = append(c.Reruns, r.rerun(ctx, o.Cell, k))
		}
	}
	r.cells = append(r.cells, c)
	if err := r.write(r.file(true, false)); err != nil {
		r.obs.NotSaved(err)
	}
}

// rerun runs cell c again from the same seed under its k-th rerun key.
func (r *runner) rerun(ctx context.Context, c scenario.Cell, k int) results.Rerun {
	key := CellKey(c, k)
	start := r.now()
	ran, err := r.exec.Exec(ctx, c, key)
	out := results.Rerun{Wall: r.now().Sub(start)}
	if ran.Recorded {
		out.Dir = string(key)
	}
	switch {
	case ctx.Err() != nil:
		out.Error = "interrupted: the rerun was stopped early and decides nothing"
	case err != nil:
		out.Error = err.Error()
	default:
		out.Verdict, out.Invalid, out.Checkers = ran.Report.Verdict, ran.Report.InvalidCheckers(), results.CheckerVerdicts(ran.Report)
	}
	return out
}
