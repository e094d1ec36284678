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
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

const nightlyExamples = `  lockcheck nightly                                   # every scenario × reentrant, fair, fenced, simple, redlock, reentrant-wait × 3 seeds
  lockcheck nightly --seeds 5 --subjects reentrant,fair
  lockcheck nightly --scenarios client-stall,partition-long --subjects mutant-check-then-set
  lockcheck nightly --seeds 20 --shard 2/4 --out shard-2   # one of 4 machines; merge with lockcheck report
`

// matrixFlags are the flags nightly and scoreboard share.
type matrixFlags struct {
	nseeds    int
	seedBase  int64
	subjects  string
	scenarios string
	out       string
	duration  time.Duration
	checkTime time.Duration
	shard     string
	reruns    int
	engine    engineFlags
}

// add declares the flags on fs with the command's defaults in f.
func (f *matrixFlags) add(fs *flag.FlagSet, subjectsDoc string) {
	fs.IntVar(&f.nseeds, "seeds", f.nseeds, "seeds per scenario × subject (seed base+1 .. base+N)")
	fs.StringVar(&f.subjects, "subjects", f.subjects, subjectsDoc)
	fs.StringVar(&f.scenarios, "scenarios", "", "comma-separated scenarios (default: all, see 'lockcheck scenarios')")
	fs.StringVar(&f.out, "out", "results", "base directory: runs go to <out>/runs/<command>/<time>/")
	fs.DurationVar(&f.duration, "duration", 0, "length of each run (default: the scenario's)")
	fs.DurationVar(&f.checkTime, "check-timeout", 0, "bound on each linearizability check (default 60s)")
	fs.StringVar(&f.shard, "shard", "", "run only shard I of N of the cells (I/N, 1 <= I <= N; a cell's shard is a hash of scenario, subject and seed)")
	fs.IntVar(&f.reruns, "reruns", f.reruns, "rerun each cell that breaks a property the lock claims this many times from its 'lockcheck run' line, to see it reproduce")
	f.engine.add(fs)
}

// matrixRun is one nightly or scoreboard run: its cells and how to run
// them.
type matrixRun struct {
	kind      string // "nightly" or "scoreboard": the runs' folder and messages
	scs       []scenario.Scenario
	subjects  []subject.Subject
	seedBase  int64
	seeds     []int64
	shard     scenario.Shard
	duration  time.Duration
	checkTime time.Duration
	reruns    int
	base      string // the output directory
	start     time.Time
	engine    string // the --server/--backend/--image flags every cell's command repeats
	server    string // the server the cells ran on, for the record ("" before it is resolved)
}

// plan checks the flags and resolves the scenarios and subjects named.
func (f *matrixFlags) plan(kind string, pick func(string) ([]subject.Subject, error)) (*matrixRun, error) {
	shard, err := scenario.ParseShard(f.shard)
	if err != nil {
		return nil, usagef("--shard: %v", err)
	}
	switch {
	case f.nseeds < 1:
		return nil, usagef("--seeds: %d, want >= 1", f.nseeds)
	case f.duration < 0 || f.checkTime < 0:
		return nil, usagef("--duration and --check-timeout must not be negative")
	case f.reruns < 0:
		return nil, usagef("--reruns: %d, want >= 0", f.reruns)
	}
	subjects, err := pick(f.subjects)
	if err != nil {
		return nil, err
	}
	scs, err := lookupScenarios(f.scenarios)
	if err != nil {
		return nil, err
	}
	m := &matrixRun{kind: kind, scs: scs, subjects: subjects, seedBase: f.seedBase, shard: shard, engine: f.engine.args(),
		duration: f.duration, checkTime: f.checkTime, reruns: f.reruns, start: time.Now()}
	for i := range f.nseeds {
		m.seeds = append(m.seeds, f.seedBase+int64(i+1))
	}
	m.base = filepath.Join(f.out, "runs", kind, m.start.UTC().Format("20060102T150405")+shardSuffix(shard))
	return m, nil
}

// lookupScenarios resolves a comma-separated list ("": the catalog).
func lookupScenarios(list string) ([]scenario.Scenario, error) {
	if list == "" {
		return scenario.Catalog(), nil
	}
	var scs []scenario.Scenario
	for _, n := range splitList(list) {
		sc, err := scenario.Lookup(n)
		if err != nil {
			return nil, usagef("--scenarios: %v", err)
		}
		scs = append(scs, sc)
	}
	return scs, nil
}

func nightlyCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "nightly", "nightly [flags]", nightlyExamples)
	f := matrixFlags{nseeds: 3, subjects: referenceSubjects}
	f.add(fs, "comma-separated subjects")
	fs.Int64Var(&f.seedBase, "seed-base", 0, "seeds are base+1 .. base+N")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	m, err := f.plan("nightly", lookupSubjects)
	if err != nil {
		return exitUsage, err
	}
	if err := f.engine.check(); err != nil {
		return exitUsage, err
	}
	if e.stopValidated("nightly") {
		return exitValid, nil
	}
	ctx, closeEngine, err := f.engine.open(ctx, e.stderr, false)
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	m.server = engineRecord(ctx)
	_, code, err := m.execute(ctx, e)
	return code, err
}

// execute runs the matrix into m.base, writes matrix.md and matrix.json
// there, prints the table and returns the cells and the exit status.
func (m *matrixRun) execute(ctx context.Context, e *env) (*nightlyMatrix, int, error) {
	if err := os.MkdirAll(m.base, 0o755); err != nil {
		return nil, exitUsage, err
	}
	fmt.Fprintf(e.stderr, "lockcheck %s: %d scenarios × %d subjects × %d seeds%s into %s\n", m.kind, len(m.scs), len(m.subjects), len(m.seeds), shardNote(m.shard), m.base)
	nm := &nightlyMatrix{run: m, walls: &cellWalls{}, stopped: &interruptedCells{}}
	nm.subjects = subjectInfos(ctx, m.subjects)
	done := func(o scenario.Outcome) {
		nm.stopped.say(&o)
		printOutcome(e, o)
		nm.add(ctx, e, o)
	}
	outs := scenario.ShardMatrix(ctx, m.shard, m.scs, m.subjects, m.seeds, nm.runCell, done)
	nm.interrupted = interrupted(ctx)
	if err := nm.write(false); err != nil {
		return nm, exitUsage, err
	}
	path := filepath.Join(m.base, results.MatrixFileName)
	if err := results.WriteMatrixTable(e.stdout, results.MatrixReport(nm.file(false), path, time.Now()), false); err != nil {
		return nm, exitUsage, err
	}
	fmt.Fprintf(e.stdout, "matrix: %s\n", filepath.Join(m.base, "matrix.md"))
	return nm, m.exitCode(ctx, e, outs), nil
}

// runCell runs one cell into its directory under the run's base.
func (nm *nightlyMatrix) runCell(ctx context.Context, c scenario.Cell) (model.Report, string, error) {
	defer nm.walls.time(c)()
	dir := filepath.Join(nm.run.base, c.Scenario.Name, c.Subject.Name+"-"+strconv.FormatInt(c.Seed, 10))
	rep, dir, err := nm.run.runOne(ctx, c, dir)
	if interrupted(ctx) {
		nm.stopped.mark(c)
	}
	return rep, dir, err
}

// runOne runs the cell c into dir, quietly; a run that did not get its
// faults is an error.
func (m *matrixRun) runOne(ctx context.Context, c scenario.Cell, dir string) (model.Report, string, error) {
	quiet := &env{stdout: discard{}, stderr: discard{}}
	sum, dir, degraded, err := runScenario(ctx, quiet, c.Scenario, c.Subject.Name, c.Seed, m.duration, m.checkTime, dir)
	if err == nil && degraded != nil {
		err = degraded
	}
	return sum.Report, dir, err
}

// printOutcome prints one cell's status line.
func printOutcome(e *env, o scenario.Outcome) {
	status := "as expected"
	if o.Expect.Skip != "" {
		status = "skipped: " + o.Expect.Skip
	}
	if !o.OK {
		status = "NOT as expected: " + o.Why
	}
	fmt.Fprintf(e.stderr, "  %-24s %-10s seed %d: %-8s %s\n", o.Scenario.Name, o.Subject.Name, o.Seed, o.Report.Verdict, status)
}

// exitCode says how the matrix went: 0 every cell as expected, 1 some not,
// 2 a cell could not run or the run was interrupted.
func (m *matrixRun) exitCode(ctx context.Context, e *env, outs []scenario.Outcome) int {
	verr := scenario.Verdict(outs)
	switch {
	case interrupted(ctx):
		reportInterrupted(e, m.kind, []string{m.base}, nil)
		return exitInterrupted
	case errors.Is(verr, scenario.ErrInfrastructure):
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", m.kind, verr)
		return exitUsage
	case verr != nil:
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", m.kind, verr)
		return exitInvalid
	}
	return exitValid
}
