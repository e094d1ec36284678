package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
)

func checkCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "check", "check [--json] [--max-segment-ops N] [--check-timeout D] DIR",
		"  lockcheck check results/runs/mixed-reentrant/20261122T101500-42\n\n"+
			"Exit status: 0 valid; 1 a violation; 2 bad input (a missing or corrupt run\n"+
			"directory, a history line that cannot occur, named by its number, or a\n"+
			"history without ops), a verdict unknown (a checker undecided within\n"+
			"--check-timeout, a history cut short by a run that did not finish and holding\n"+
			"no violation: 'complete' column), or a check stopped by SIGINT or SIGTERM\n"+
			"(the run directory is left as it was).\n")
	asJSON := fs.Bool("json", false, "print the summary as JSON instead of a table")
	maxSeg := fs.Int("max-segment-ops", 0, "check segments (stretches of one lock without a quiet point) of up to this many ops;\nlarger ones are undecided (0: the run's setting or 131072; -1: no bound, memory ~ n²/8 bytes)")
	timeout := fs.Duration("check-timeout", 0, "bound on the whole check (default: the run's setting or 60s; then the verdict is unknown)")
	if err := parseFlags(fs, args, 1); err != nil {
		return exitUsage, err
	}
	if fs.NArg() != 1 {
		return exitUsage, usagef("want exactly one run directory")
	}
	dir := fs.Arg(0)
	defer limitMemory(filepath.Join(dir, results.HistoryFile))()
	run, err := results.LoadRun(dir)
	if err != nil {
		return exitUsage, err
	}
	var rec workloads.RunRecord
	opts := model.Options{}
	switch err := run.DecodeConfig(&rec); {
	case err == nil && rec.CheckOptions != nil:
		opts = *rec.CheckOptions
	case err == nil || errors.Is(err, results.ErrNoConfig):
		fmt.Fprintf(e.stderr, "lockcheck check: %s has no check options (a run that crashed early?): using defaults\n", dir)
	default:
		return exitUsage, err
	}
	if *maxSeg != 0 {
		opts.MaxSegmentOps = *maxSeg
	}
	if *timeout < 0 {
		return exitUsage, usagef("--check-timeout: %v is negative", *timeout)
	}
	if *timeout > 0 {
		opts.Timeout = *timeout
	}
	if why := run.History.Unfinished(); why != "" {
		fmt.Fprintf(e.stderr, "lockcheck check: the run did not finish (%s); checking the prefix\n", why)
	}
	rep := model.CheckContext(ctx, run.History, opts)
	if interrupted(ctx) {
		fmt.Fprintf(e.stderr, "lockcheck check: interrupted: the check was stopped before it decided; %s was left as it was: re-check it with 'lockcheck check %s' (exit %d)\n",
			dir, dir, exitInterrupted)
		return exitInterrupted, nil
	}
	sum, err := results.WriteRunContext(ctx, dir, results.RunArtifacts{
		Subject: rec.Config.Subject, Workload: rec.Config.Workload, Seed: rec.Config.Seed,
		History: run.History, Report: rep, Options: opts,
		HistoryPath: filepath.Join(dir, results.HistoryFile),
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck check: rewriting %s: %v\n", dir, err)
	}
	if *asJSON {
		err = results.WriteJSON(e.stdout, []results.Summary{sum})
	} else {
		err = results.Render(e.stdout, []results.Summary{sum})
		if err == nil && rep.Verdict != model.Valid {
			fmt.Fprintln(e.stdout, rep.String())
		}
	}
	if err != nil {
		return exitUsage, err
	}
	code := checkExit(sum)
	if code == exitUsage {
		fmt.Fprintf(e.stderr, "lockcheck check: verdict unknown: %s (exit %d)\n", unknownCause(sum.Report, nil), code)
	}
	return code, nil
}

// limitMemory sets a soft memory limit of 2.5 times the history's size
// (at least 256 MiB) unless GOMEMLIMIT is set, so that the garbage of the
// checkers is collected before the heap doubles: the history's ops take
// about 1.5 times the file, and peak memory stays within 3 times it. It
// returns a function that restores the previous limit.
func limitMemory(history string) func() {
	fi, err := os.Stat(history)
	if err != nil || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(max(fi.Size()*5/2, 256<<20))
	return func() { debug.SetMemoryLimit(prev) }
}

// checkExit maps a re-checked run to an exit status: a violation is 1 even
// in a truncated history; a truncated history without one decided nothing
// about the run (2); otherwise as exitFor (unknown: 2).
func checkExit(sum results.Summary) int {
	if sum.Report.Incomplete() && sum.Verdict() != model.Invalid {
		return exitUsage
	}
	return exitFor([]results.Summary{sum})
}
