package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
)

// checkFlags are the flags of `lockcheck check`.
type checkFlags struct {
	asJSON  bool
	out     string
	maxSeg  int
	timeout time.Duration
}

// parse parses args into f and returns the run directory they name.
func (f *checkFlags) parse(e *env, args []string) (string, error) {
	fs := newFlags(e, "check", "check [--json] [--out NEWDIR] [--max-segment-ops N] [--check-timeout D] DIR",
		"  lockcheck check results/runs/mixed-reentrant/20261122T101500.000-1-42\n"+
			"  lockcheck check --out /tmp/recheck results/runs/mixed-reentrant/20261122T101500.000-1-42\n\n"+
			"check reads DIR and writes nothing there: it prints the verdict, and says how it\n"+
			"differs from the one DIR/result.json records. --out writes the re-check's\n"+
			"result.json, summary.md, history.html and plots to a new directory.\n\n"+
			"Exit status: 0 valid (or, for a scenario's run, as expected: DIR/expect.json);\n"+
			"1 a violation (or not as expected); 2 bad input (a missing or corrupt run\n"+
			"directory, a history line that cannot occur, named by its number, or a\n"+
			"history without ops), a verdict unknown (a checker undecided within\n"+
			"--check-timeout, a history cut short by a run that did not finish and holding\n"+
			"no violation: 'complete' column), or a check stopped by SIGINT or SIGTERM.\n")
	fs.BoolVar(&f.asJSON, "json", false, "print the summary as JSON instead of a table")
	fs.StringVar(&f.out, "out", "", "write the re-check's run directory (result.json, summary.md, history.html, plots, a copy of the history) to this new directory (default: write nothing)")
	fs.IntVar(&f.maxSeg, "max-segment-ops", 0, "check segments (stretches of one lock without a quiet point) of up to this many ops;\nlarger ones are undecided (0: the run's setting or 131072; -1: no bound, memory ~ n²/8 bytes)")
	fs.DurationVar(&f.timeout, "check-timeout", 0, "bound on the whole check (default: the run's setting or 60s; then the verdict is unknown)")
	if err := parseFlags(fs, args, 1); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", usagef("want exactly one run directory")
	}
	if f.timeout < 0 {
		return "", usagef("--check-timeout: %v is negative", f.timeout)
	}
	dir := fs.Arg(0)
	if f.out != "" {
		if _, err := os.Lstat(f.out); err == nil {
			return "", usagef("--out %s exists: a re-check writes to a new directory", f.out)
		}
		if within(f.out, dir) {
			return "", usagef("--out %s is inside %s, which a re-check leaves as it is: give a directory elsewhere", f.out, dir)
		}
	}
	return dir, nil
}

// within reports whether path is dir or lies under it.
func within(path, dir string) bool {
	p, err1 := filepath.Abs(path)
	d, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return false
	}
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkCmd is `lockcheck check DIR`: it re-checks the run DIR holds and
// writes nothing there (--out: the re-check's directory, a new one).
func checkCmd(ctx context.Context, e *env, args []string) (int, error) {
	var f checkFlags
	dir, err := f.parse(e, args)
	if err != nil {
		return exitUsage, err
	}
	defer limitMemory(filepath.Join(dir, results.HistoryFile))()
	run, err := results.LoadRun(dir)
	if err != nil {
		return exitUsage, err
	}
	rec, opts, err := checkOptions(e, run, f.maxSeg, f.timeout)
	if err != nil {
		return exitUsage, err
	}
	if why := run.History.Unfinished(); why != "" {
		fmt.Fprintf(e.stderr, "lockcheck check: the run did not finish (%s); checking the prefix\n", why)
	}
	rep := model.CheckContext(ctx, run.History, opts)
	if interrupted(ctx) {
		fmt.Fprintf(e.stderr, "lockcheck check: interrupted: the check was stopped before it decided; nothing was written: re-check it with 'lockcheck check %s' (exit %d)\n",
			dir, exitInterrupted)
		return exitInterrupted, nil
	}
	a := checkArtifacts(run, rec, rep, opts)
	sum := results.Summarize(a.Subject, a.Release, a.Workload, a.Seed, run.History, rep)
	if run.Expect != nil {
		j := run.Expect.Judge(rep)
		sum.Expected = &j
	}
	if f.out != "" {
		if err := writeCheckDir(ctx, f.out, dir, a); err != nil {
			fmt.Fprintf(e.stderr, "lockcheck check: writing %s: %v\n", f.out, err)
		}
	}
	if err := printCheck(e, sum, f.asJSON); err != nil {
		return exitUsage, err
	}
	reportRecorded(e.stderr, dir, run.Result, sum)
	code := checkExit(sum)
	if code == exitUsage {
		fmt.Fprintf(e.stderr, "lockcheck check: verdict unknown: %s (exit %d)\n", unknownCause(sum.Report, nil), code)
	}
	return code, nil
}

// checkOptions are the run's record (config.json) and the checker options
// of a re-check: the run's own, overridden by --max-segment-ops and
// --check-timeout when given (non-zero), with the run's wire trace
// (wire.jsonl) when it recorded one.
func checkOptions(e *env, run *results.Run, maxSeg int, timeout time.Duration) (workloads.RunRecord, model.Options, error) {
	var rec workloads.RunRecord
	opts := model.Options{}
	switch err := run.DecodeConfig(&rec); {
	case err == nil && rec.CheckOptions != nil:
		opts = *rec.CheckOptions
	case err == nil || errors.Is(err, results.ErrNoConfig):
		fmt.Fprintf(e.stderr, "lockcheck check: %s has no check options (a run that crashed early?): using defaults\n", run.Dir)
	default:
		return rec, opts, err
	}
	if maxSeg != 0 {
		opts.MaxSegmentOps = maxSeg
	}
	if timeout > 0 {
		opts.Timeout = timeout
	}
	wire, err := results.LoadWireTrace(run.Dir) // the evidence the run recorded, if any
	if err != nil {
		return rec, opts, err
	}
	opts.Wire = wire
	return rec, opts, nil
}

// checkArtifacts is what a re-check of run knows: the run's names (from
// config.json, else from the result.json it recorded), the commit that ran
// it (config.json), its history, its config and expectation, and the new
// report.
func checkArtifacts(run *results.Run, rec workloads.RunRecord, rep model.Report, opts model.Options) results.RunArtifacts {
	a := results.RunArtifacts{
		Subject: rec.Config.Subject, Release: rec.Subject.Release, Workload: rec.Config.Workload, Seed: rec.Config.Seed,
		History: run.History, Report: rep, Options: opts, Expect: run.Expect,
		HistoryPath: filepath.Join(run.Dir, results.HistoryFile), Commit: rec.Commit,
	}
	if run.Config != nil {
		a.Config = run.Config
	}
	if r := run.Result; r != nil {
		a.Subject, a.Workload = cmp.Or(a.Subject, r.Subject), cmp.Or(a.Workload, r.Workload)
		a.Release, a.Seed = cmp.Or(a.Release, r.Release), cmp.Or(a.Seed, r.Seed)
	}
	return a
}

// writeCheckDir writes a re-check of the run in from to dir, which must
// not exist: it is created exclusively, so a re-check never writes over a
// run (or another re-check). The run's wire trace is copied with its
// history, so that dir re-checks to the same answer.
func writeCheckDir(ctx context.Context, dir, from string, a results.RunArtifacts) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	if wire := filepath.Join(from, model.WireFile); fileExists(wire) {
		errs = append(errs, results.CopyFile(wire, filepath.Join(dir, model.WireFile), 0o644))
	}
	_, err := results.WriteRunContext(ctx, dir, a)
	return errors.Join(append(errs, err)...)
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// printCheck prints a re-check's summary: the table, the report of a run
// not valid and how the run went against its expectation; or JSON.
func printCheck(e *env, sum results.Summary, asJSON bool) error {
	if asJSON {
		return results.WriteJSON(e.stdout, []results.Summary{sum})
	}
	if err := results.Render(e.stdout, []results.Summary{sum}); err != nil {
		return err
	}
	if sum.Verdict() != model.Valid {
		fmt.Fprintln(e.stdout, sum.Report.String())
	}
	if j := sum.Expected; j != nil {
		fmt.Fprintf(e.stdout, "%s on %s: %s\n", sum.Subject, j.Scenario, j.Phrase(sum.Report))
	}
	return nil
}

// reportRecorded says on w how the re-check's verdicts differ from the
// ones the run recorded in dir/result.json (nothing when they agree or the
// run recorded none). A re-check of a history cut short decided only its
// prefix: it says that the recorded whole-run verdict stands.
func reportRecorded(w io.Writer, dir string, recorded *results.Summary, now results.Summary) {
	if recorded == nil {
		return
	}
	where := filepath.Join(dir, results.ResultFile)
	if now.Report.Incomplete() && !recorded.Report.Incomplete() {
		fmt.Fprintf(w, "lockcheck check: this check saw a prefix of the history (verdict %s); %s records the whole run's verdict, %s, which stands\n",
			now.Verdict(), where, recorded.Verdict())
		return
	}
	if change := verdictChange(recorded.Report, now.Report); change != "" {
		fmt.Fprintf(w, "lockcheck check: the verdicts differ from those %s records: %s\n", where, change)
	}
}

// verdictChange says how now's verdicts differ from recorded's:
// "recorded: valid, now: invalid (fault-allowance: valid → invalid)", the
// checkers whose verdict changed, appeared or went in parentheses; "" when
// every verdict is the same.
func verdictChange(recorded, now model.Report) string {
	var changed []string
	for _, r := range now.Results {
		switch old, ok := recorded.Result(r.Checker); {
		case !ok:
			changed = append(changed, fmt.Sprintf("%s: %s, not run then", r.Checker, r.Verdict))
		case old.Verdict != r.Verdict:
			changed = append(changed, fmt.Sprintf("%s: %s → %s", r.Checker, old.Verdict, r.Verdict))
		}
	}
	for _, r := range recorded.Results {
		if _, ok := now.Result(r.Checker); !ok {
			changed = append(changed, fmt.Sprintf("%s: %s, not run now", r.Checker, r.Verdict))
		}
	}
	if recorded.Verdict == now.Verdict && len(changed) == 0 {
		return ""
	}
	s := fmt.Sprintf("recorded: %s, now: %s", recorded.Verdict, now.Verdict)
	if len(changed) > 0 {
		s += " (" + strings.Join(changed, "; ") + ")"
	}
	return s
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
// about the run (2); a run with an expectation (a scenario's) is 0 when
// its report meets it and 1 when not, as `run --scenario` exits; otherwise
// as exitFor (unknown: 2).
func checkExit(sum results.Summary) int {
	switch {
	case sum.Report.Incomplete() && sum.Verdict() != model.Invalid:
		return exitUsage
	case sum.Expected != nil && sum.Expected.Met:
		return exitValid
	case sum.Expected != nil:
		return exitInvalid
	}
	return exitFor([]results.Summary{sum})
}
