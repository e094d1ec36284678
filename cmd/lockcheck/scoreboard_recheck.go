package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

const scoreboardRecheckExamples = `  lockcheck scoreboard recheck out/scoreboard/redis-7.0-1 out/scoreboard/valkey-8.1-1
  lockcheck scoreboard recheck out/scoreboard        # every part under it

recheck checks every run the parts recorded (each cell's, and each rerun's)
again with this build's checkers, from its history, wire trace and check
options, and lists the checker verdicts that differ from the ones the part
recorded. It writes nothing: parts made by several builds are shown to
stand at this one, or the cells that differ are named, to run again.

Exit status: 0 every verdict is the same; 1 some differ (listed);
2 bad input (no part, a run that cannot be read), or interrupted.
`

// scoreboardRecheckCmd is `lockcheck scoreboard recheck DIR…`.
func scoreboardRecheckCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "scoreboard recheck", "scoreboard recheck DIR|matrix.json…", scoreboardRecheckExamples)
	dirs, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage, err
	}
	if len(dirs) == 0 {
		return exitUsage, usagef("want at least one scoreboard output directory (or matrix.json)")
	}
	if e.stopValidated("scoreboard recheck") {
		return exitValid, nil
	}
	paths, err := results.FindMatrices(dirs)
	if err != nil {
		return exitUsage, err
	}
	var sum recheckSum
	for _, p := range paths {
		if err := sum.part(ctx, e, p); err != nil {
			return exitUsage, err
		}
		if interrupted(ctx) {
			return exitInterrupted, nil
		}
	}
	sum.print(e.stdout)
	if len(sum.differ) > 0 {
		return exitInvalid, nil
	}
	return exitValid, nil
}

// recheckSum is what a recheck found: the runs checked and the verdicts
// that differ, one line each.
type recheckSum struct {
	parts, runs int
	differ      []string
}

// part re-checks every run of the cells of the matrix at path.
func (s *recheckSum) part(ctx context.Context, e *env, path string) error {
	mf, err := results.LoadMatrix(path)
	if err != nil {
		return err
	}
	s.parts++
	base := filepath.Dir(path)
	for _, c := range mf.Cells {
		if c.Dir == "" || c.Skip != "" || c.Error != "" {
			continue
		}
		name := fmt.Sprintf("%s/%s/%d", c.Scenario, c.Subject, c.Seed)
		if err := s.run(ctx, e, name, filepath.Join(base, c.Dir), c.Checkers, &c.Beyond); err != nil {
			return err
		}
		for k, r := range c.Reruns {
			if r.Dir == "" || r.Error != "" {
				continue
			}
			rerun := fmt.Sprintf("%s rerun %d", name, k+1)
			if err := s.run(ctx, e, rerun, filepath.Join(base, r.Dir), r.Checkers, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// run re-checks the run in dir and notes how its verdicts differ from
// recorded, and from beyond, the cell's record of whether a violation went
// beyond every fault (nil for a rerun, which records none).
func (s *recheckSum) run(ctx context.Context, e *env, name, dir string, recorded []results.CheckerVerdict, beyond *bool) error {
	run, opts, done, err := loadForCheck(e, dir)
	if err != nil {
		return err
	}
	defer done()
	rep := model.CheckContext(ctx, run.History, opts)
	if interrupted(ctx) {
		return nil
	}
	s.runs++
	diffs := verdictDiffs(recorded, results.CheckerVerdicts(rep))
	if beyond != nil && *beyond != rep.Beyond() {
		diffs = append(diffs, fmt.Sprintf("beyond the fault: %v → %v", *beyond, rep.Beyond()))
	}
	if len(diffs) > 0 {
		s.differ = append(s.differ, fmt.Sprintf("%s (%s): %s", name, dir, strings.Join(diffs, "; ")))
	}
	return nil
}

// verdictDiffs lists each checker whose verdict differs between recorded
// and now ("-" for a checker only one of them ran).
func verdictDiffs(recorded, now []results.CheckerVerdict) []string {
	was := map[string]model.Verdict{}
	for _, cv := range recorded {
		was[cv.Checker] = cv.Verdict
	}
	var out []string
	for _, cv := range now {
		w, ok := was[cv.Checker]
		delete(was, cv.Checker)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: - → %s", cv.Checker, cv.Verdict))
		case w != cv.Verdict:
			out = append(out, fmt.Sprintf("%s: %s → %s", cv.Checker, w, cv.Verdict))
		}
	}
	for _, cv := range recorded {
		if _, gone := was[cv.Checker]; gone {
			out = append(out, fmt.Sprintf("%s: %s → -", cv.Checker, cv.Verdict))
		}
	}
	return out
}

// print says how many runs were re-checked, at which build, and lists
// those that differ.
func (s recheckSum) print(w io.Writer) {
	fmt.Fprintf(w, "re-checked %d runs of %d scoreboard parts at lockcheck %s: %d differ from their record\n", s.runs, s.parts, pageCommit(), len(s.differ))
	for _, d := range s.differ {
		fmt.Fprintln(w, "  "+d)
	}
}

// runAllowances reads a run's allowances as recheck reads its verdicts:
// the fault-allowance checker of this build, on the run's history, wire
// trace and check options.
func runAllowances(e *env) results.RunAllowances {
	return func(dir string) ([]string, error) {
		run, opts, done, err := loadForCheck(e, dir)
		if err != nil {
			return nil, err
		}
		defer done()
		return model.CheckBeyond(run.History, opts).Allowed, nil
	}
}

// runNeedsWire says whether a run's verdicts, checked by this build
// without its wire trace, differ from the ones it recorded (those a page
// shows): then a page must keep the trace for its copy to check the same.
func runNeedsWire(e *env) func(dir string) (bool, error) {
	return func(dir string) (bool, error) {
		run, opts, done, err := loadForCheck(e, dir)
		if err != nil || opts.Wire == nil || run.Result == nil {
			return false, err
		}
		defer done()
		opts.Wire = nil
		rep := model.CheckContext(context.Background(), run.History, opts)
		return len(verdictDiffs(results.CheckerVerdicts(run.Result.Report), results.CheckerVerdicts(rep))) > 0, nil
	}
}

// loadForCheck loads the run in dir and its check options, under the
// memory limit its history calls for (done lifts it).
func loadForCheck(e *env, dir string) (*results.Run, model.Options, func(), error) {
	done := limitMemory(filepath.Join(dir, results.HistoryFile))
	run, err := results.LoadRun(dir)
	if err != nil {
		done()
		return nil, model.Options{}, nil, err
	}
	_, opts, err := checkOptions(e, run, 0, 0)
	if err != nil {
		done()
		return nil, model.Options{}, nil, err
	}
	return run, opts, done, nil
}
