package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/results"
)

const reportExamples = `  lockcheck report results/runs/nightly                    # every matrix.json under it
  lockcheck report --out report shard-1 shard-2 shard-3 shard-4
  lockcheck report --baseline last-night/report --out report shards/

Exit status: 0 every cell as expected; 1 a cell not as expected, could not
run, or a regression against --baseline; 2 bad input (no matrix.json under a
DIR, a corrupt one, a cell in two inputs, or shards of a sharded run missing:
the report is still written, marked incomplete).
`

// reportCmd is `lockcheck report DIR…`: it merges the matrix.json files of
// nightly runs or shards into one report (JSON, Markdown, HTML).
func reportCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "report", "report [--out DIR] [--baseline DIR] DIR|matrix.json…", reportExamples)
	out := fs.String("out", "", "directory for report.{json,md,html} (default results/runs/report/<time>)")
	baseline := fs.String("baseline", "", "a previous report's directory (or nightly output) to compare with; rows that got worse are marked")
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage, err
	}
	if len(dirs) == 0 {
		return exitUsage, usagef("want at least one nightly output directory (or matrix.json)")
	}
	now := time.Now()
	if *out == "" {
		*out = filepath.Join("results", "runs", "report", now.UTC().Format("20060102T150405"))
	}
	paths, err := results.FindMatrices(dirs)
	if err != nil {
		return exitUsage, err
	}
	if e.validateOnly {
		return validateReport(e, paths, *baseline)
	}
	rep, err := results.MergeMatrices(paths, *out, now)
	if err != nil {
		return exitUsage, err
	}
	if *baseline != "" {
		base, err := results.LoadBaseline(*baseline)
		if err != nil {
			return exitUsage, fmt.Errorf("--baseline: %w", err)
		}
		results.CompareBaseline(&rep, base, *baseline)
	}
	files, err := results.WriteReport(*out, rep)
	if err != nil {
		return exitUsage, err
	}
	return reportStatus(e, rep, files), nil
}

// validateReport loads the matrices and the baseline a report would merge
// and stops there (env.validateOnly).
func validateReport(e *env, paths []string, baseline string) (int, error) {
	for _, p := range paths {
		if _, err := results.LoadMatrix(p); err != nil {
			return exitUsage, err
		}
	}
	if baseline != "" {
		if _, err := results.LoadBaseline(baseline); err != nil {
			return exitUsage, fmt.Errorf("--baseline: %w", err)
		}
	}
	e.stopValidated("report")
	return exitValid, nil
}

// reportStatus prints the outcome and returns the exit status.
func reportStatus(e *env, rep results.Report, files []string) int {
	cells := 0
	for _, r := range rep.Rows {
		cells += len(r.Cells)
	}
	fmt.Fprintf(e.stdout, "%d cells from %d matrices; %d not as expected; %d regressions\n", cells, len(rep.Sources), rep.Unexpected(), rep.Regressions())
	for _, f := range files {
		fmt.Fprintf(e.stdout, "report: %s\n", f)
	}
	switch {
	case len(rep.MissingShards) > 0:
		fmt.Fprintf(e.stderr, "lockcheck report: incomplete: no output from shard(s) %s\n", strings.Join(rep.MissingShards, ", "))
		return exitUsage
	case rep.Unexpected() > 0 || rep.Regressions() > 0:
		for _, r := range rep.Rows {
			if !r.OK() || r.Regression != "" {
				fmt.Fprintf(e.stderr, "  %s: %s %s\n", r.Key(), strings.TrimSpace(rateOf(r)), r.Regression)
			}
		}
		return exitInvalid
	}
	return exitValid
}

// rateOf says how many of a row's cells were not as expected.
func rateOf(r results.ReportRow) string {
	return fmt.Sprintf("%d of %d cells not as expected (%d could not run)", r.Unexpected+r.Errors, len(r.Cells), r.Errors)
}

// parseInterspersed parses flags given before, between or after the
// positional arguments (report DIR… --baseline B) and returns the latter.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args, math.MaxInt); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
