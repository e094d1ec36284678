package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/matrix"
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
	servers   string // --servers: the matrix once per server
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
	fs.StringVar(&f.servers, "servers", "", "comma-separated servers (e.g. redis-7.0,valkey-8.1): the matrix once per server, each into <dir>/<server>, in one invocation (instead of --server)")
}

// plan checks the flags and resolves the scenarios and subjects named
// into the matrix of kind, its directory <out>/runs/<kind>/<time>[-shard].
func (f *matrixFlags) plan(kind string, pick func(string) ([]subject.Subject, error)) (matrix.Config, error) {
	shard, err := scenario.ParseShard(f.shard)
	if err != nil {
		return matrix.Config{}, usagef("--shard: %v", err)
	}
	switch {
	case f.nseeds < 1:
		return matrix.Config{}, usagef("--seeds: %d, want >= 1", f.nseeds)
	case f.duration < 0 || f.checkTime < 0:
		return matrix.Config{}, usagef("--duration and --check-timeout must not be negative")
	case f.reruns < 0:
		return matrix.Config{}, usagef("--reruns: %d, want >= 0", f.reruns)
	}
	subjects, err := pick(f.subjects)
	if err != nil {
		return matrix.Config{}, err
	}
	scs, err := lookupScenarios(f.scenarios)
	if err != nil {
		return matrix.Config{}, err
	}
	cfg := matrix.Config{Kind: kind, Scenarios: scs, Subjects: subjects, SeedBase: f.seedBase, Shard: shard,
		Duration: f.duration, CheckTimeout: f.checkTime, Reruns: f.reruns, Engine: f.engine.args()}
	for i := range f.nseeds {
		cfg.Seeds = append(cfg.Seeds, f.seedBase+int64(i+1))
	}
	cfg.Dir = filepath.Join(f.out, "runs", kind, time.Now().UTC().Format(results.TimestampLayout)+shardSuffix(shard))
	return cfg, nil
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
	cfg, names, done, err := f.prepare(e, fs, args, matrix.Nightly, lookupSubjects)
	if err != nil || done {
		return prologueExit(err), err
	}
	return executeServers(ctx, e, &f, cfg, names)
}

// prepare is the prologue of the matrix commands (nightly, scoreboard):
// it parses args into fs, plans the matrix of kind with its subjects
// picked by pick, checks the engine and the servers' axis, and returns
// the matrix and the servers to run it on. done is set when the command
// was only to validate its flags (--validate): nothing is left to do.
func (f *matrixFlags) prepare(e *env, fs *flag.FlagSet, args []string, kind string, pick func(string) ([]subject.Subject, error)) (cfg matrix.Config, names []string, done bool, err error) {
	if err = parseFlags(fs, args, 0); err != nil {
		return cfg, nil, false, err
	}
	if cfg, err = f.plan(kind, pick); err != nil {
		return cfg, nil, false, err
	}
	if err = f.engine.check(); err != nil {
		return cfg, nil, false, err
	}
	if names, err = f.serverList(); err != nil {
		return cfg, nil, false, err
	}
	return cfg, names, e.stopValidated(kind), nil
}

// prologueExit is the exit status of a prologue that ended the command: a
// usage error's, or success when it only validated.
func prologueExit(err error) int {
	if err != nil {
		return exitUsage
	}
	return exitValid
}

// execute runs the matrix cfg, prints its cells as they end and its
// table at the end, and returns the exit status: 0 every cell as
// expected, 1 some not, 2 a cell could not run or the run was interrupted.
func execute(ctx context.Context, e *env, cfg matrix.Config) (int, error) {
	progress := newTally("lockcheck "+cfg.Kind, "cells", 0, false)
	cfg.Observer = matrixProgress{cliObserver{e: e}, progress}
	stopProgress := e.progress(progress.line)
	res, err := matrix.Run(ctx, cfg)
	stopProgress()
	if err != nil {
		return exitUsage, err
	}
	path := filepath.Join(cfg.Dir, results.MatrixFileName)
	if err := results.WriteMatrixTable(e.stdout, results.MatrixReport(res.File, path, time.Now()), false); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stdout, "matrix: %s\n", filepath.Join(cfg.Dir, matrix.MarkdownFile))
	verr := res.Err()
	switch {
	case res.Interrupted:
		reportInterrupted(e, cfg.Kind, []string{cfg.Dir}, nil)
		return exitInterrupted, nil
	case errors.Is(verr, scenario.ErrInfrastructure):
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", cfg.Kind, verr)
		return exitUsage, nil
	case verr != nil:
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", cfg.Kind, verr)
		return exitInvalid, nil
	}
	return exitValid, nil
}
