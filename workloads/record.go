package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// RunRecord is config.json of a run directory RunInto wrote: enough to
// re-check the run (results.Run.DecodeConfig reads it back).
type RunRecord struct {
	Config       RunConfig      `json:"config"`
	Plan         *Plan          `json:"plan,omitempty"`
	Subject      SubjectInfo    `json:"subject"`
	CheckOptions *model.Options `json:"check_options,omitempty"`
	Start        time.Time      `json:"start"`
	Warnings     []string       `json:"warnings,omitempty"`
	// Commit is the lockcheck commit that ran it (results.BuildCommit; ""
	// when the binary recorded none).
	Commit string `json:"commit,omitempty"`
}

// RunOutcome is what RunInto made of one run.
type RunOutcome struct {
	// Summary is result.json. Its verdict is never valid for a run that
	// was interrupted or degraded.
	Summary results.Summary
	// Dir is the run directory ("" when not even config.json could be
	// written).
	Dir string
	// Warnings are the run's warnings, as config.json records them.
	Warnings []string
	// WriteErr is set when some artifacts could not be written (the
	// verdict stands: it was decided before).
	WriteErr error
	// Degraded is set when the run happened but not as asked (its history
	// or its faults failed, see ErrHistoryWrite and ErrNemesis): the
	// verdict is then invalid (a violation is real whatever else
	// happened) or unknown.
	Degraded error
}

// RunInto runs cfg with deps into the run directory dir (see results):
// config.json first, history.jsonl appended as the run goes (deps.History,
// if set, receives it too), the rest at the end. A run stopped by ctx
// records that its history is a prefix, and a valid verdict on a prefix
// becomes unknown. The error is one that left no run to judge; the outcome
// then holds what was written (its Dir, its warnings).
func RunInto(ctx context.Context, cfg RunConfig, dir string, deps Deps) (RunOutcome, error) {
	rc, err := cfg.Resolve()
	if err != nil {
		return RunOutcome{}, err
	}
	return rc.RunInto(ctx, dir, deps)
}

// RunInto is RunInto of the resolved configuration: it runs rc as it is,
// without checking or resolving it again.
func (rc Resolved) RunInto(ctx context.Context, dir string, deps Deps) (RunOutcome, error) {
	cfg := rc.Config()
	start := time.Now()
	commit := results.BuildCommit()
	rec, err := results.Record(dir, RunRecord{Config: cfg, Start: start, Commit: commit})
	if err != nil {
		return RunOutcome{}, err
	}
	defer rec.Close()
	if deps.History != nil {
		deps.History = io.MultiWriter(rec.History(), deps.History)
	} else {
		deps.History = rec.History()
	}
	if deps.Wire != nil && deps.WireTrace == nil {
		if deps.WireTrace, err = rec.WireTrace(); err != nil {
			return RunOutcome{Dir: dir}, err
		}
	}
	res, err := rc.Run(ctx, deps)
	if res == nil {
		return RunOutcome{Dir: dir}, err
	}
	out := RunOutcome{Dir: dir, Warnings: append([]string(nil), res.Warnings...)}
	switch {
	case res.History.End != nil && res.History.End.Interrupted:
		out.Warnings = append(out.Warnings, interruptedWarning(time.Since(start), cfg.Duration))
		markInterrupted(&res.Report)
	case res.Report.Stopped == "interrupted":
		out.Warnings = append(out.Warnings, checkInterruptedWarning(dir))
	}
	// (err's parts are among res.Warnings)
	record := RunRecord{Config: res.Config, Plan: &res.Plan, Subject: res.Subject, CheckOptions: &res.CheckOptions, Start: res.Start, Warnings: out.Warnings, Commit: commit}
	out.Summary, out.WriteErr = rec.Finish(ctx, results.RunArtifacts{
		Subject: cfg.Subject, Release: res.Subject.Release, Workload: cfg.Workload, Seed: cfg.Seed,
		Config: record, History: res.History, Report: res.Report, Options: res.CheckOptions, Commit: commit,
	})
	if err != nil && !errors.Is(err, ErrHistoryWrite) && !errors.Is(err, ErrNemesis) {
		return out, err
	}
	if err != nil && out.Summary.Report.Verdict != model.Invalid {
		// The run happened but not as asked: never report it as valid.
		out.Summary.Report.Verdict = model.Unknown
	}
	out.Degraded = err
	return out, nil
}

// interruptedWarning is the warning an interrupted run records in its
// config.json.
func interruptedWarning(ran, planned time.Duration) string {
	return fmt.Sprintf("interrupted after %v of %v: the history is a prefix of the planned run; a valid verdict on it decides nothing",
		ran.Round(time.Millisecond), planned)
}

// markInterrupted downgrades the verdict of an interrupted run: a prefix of
// a run cannot show that the lock is valid (Valid becomes Unknown), while a
// violation found in it is still a violation.
func markInterrupted(rep *model.Report) {
	if rep.Verdict == model.Valid {
		rep.Verdict = model.Unknown
	}
}

// checkInterruptedWarning is the warning of a run that finished but whose
// check was interrupted.
func checkInterruptedWarning(dir string) string {
	return fmt.Sprintf("the check was interrupted after the run finished: the history is whole; re-check it with 'lockcheck check %s'", dir)
}
