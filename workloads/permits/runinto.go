package permits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
)

// Workload names the runs of this package in run directories and
// summaries (the lock runner's workloads have other names).
const Workload = "permits"

// RunConfig is one run of RunInto.
type RunConfig struct {
	Subject Subject
	Plan    Plan
	// Redis describes the Redis the run talks to (never a password).
	Redis string
	// CheckTimeout bounds the check (0: DefaultCheckTimeout).
	CheckTimeout time.Duration
	// Starts is how many times a run whose clients could not start
	// (ErrStart: nothing ran) is tried in all (0: 1).
	Starts int
	// Scenario names the faults' scenario ("": no faults), for the record;
	// Nemesis makes them (nil: none).
	Scenario string
	Nemesis  Nemesis
	// LossyFaults, if not nil, replaces the fault names the check takes to
	// lose the server's data (model.Options.LossyFaults).
	LossyFaults []string
}

// DefaultStarts is how many times the front doors try a run whose
// clients could not start (JVMs that missed their connect timeout on a
// busy machine): RunConfig.Starts.
const DefaultStarts = 3

// DefaultCheckTimeout bounds a run's check when RunConfig.CheckTimeout is 0.
const DefaultCheckTimeout = 60 * time.Second

// interruptCheckTimeout bounds the check of an interrupted run's prefix.
const interruptCheckTimeout = time.Second

// Record is a permits run's config.json: what ran, with the checker
// options. Its config, subject and check_options have the shape of the lock
// runner's record (workloads.RunRecord), so that `lockcheck check DIR`
// checks the history again with the same options; the plan is
// permits_plan.
type Record struct {
	Config       RecordConfig   `json:"config"`
	Subject      RecordSubject  `json:"subject"`
	Plan         Plan           `json:"permits_plan"`
	CheckOptions *model.Options `json:"check_options,omitempty"`
	Start        time.Time      `json:"start"`
	Warnings     []string       `json:"warnings,omitempty"`
	// Commit is the lockcheck commit that ran it (results.BuildCommit).
	Commit string `json:"commit,omitempty"`
}

// RecordConfig is what a Record says was asked.
type RecordConfig struct {
	Subject  string `json:"subject"`
	Workload string `json:"workload"`
	Seed     int64  `json:"seed"`
	Redis    string `json:"redis,omitempty"`
	Scenario string `json:"scenario,omitempty"`
}

// RecordSubject is what a Record says about the subject that ran.
type RecordSubject struct {
	Name    string   `json:"name"`
	Release string   `json:"release,omitempty"`
	Parts   []string `json:"parts"`
}

// RunInto runs cfg into run directory dir (results.RunDir's): config.json
// when it starts, then Run, the check, and the rest of the directory
// (results.WriteRunContext). A run whose clients could not start is tried
// again, up to cfg.Starts times, on a key prefix of its own. The error is
// one that left no run to judge; a run whose faults failed is judged and
// written, and its outcome's Degraded says so.
func RunInto(ctx context.Context, dial Dial, cfg RunConfig, dir string) (workloads.RunOutcome, error) {
	rec := Record{
		Config:  RecordConfig{Subject: cfg.Subject.Name, Workload: Workload, Seed: cfg.Plan.Seed, Redis: cfg.Redis, Scenario: cfg.Scenario},
		Subject: RecordSubject{Name: cfg.Subject.Name, Release: cfg.Subject.Release, Parts: partNames(cfg.Subject)},
		Plan:    cfg.Plan, Start: time.Now(), Commit: results.BuildCommit(),
	}
	if err := results.WriteConfig(dir, rec); err != nil {
		return workloads.RunOutcome{}, err
	}
	var h *model.History
	var err error
	for try := 1; ; try++ {
		prefix := fmt.Sprintf("lockcheck-%s-%s-%d-%d", Workload, safeKey(cfg.Subject.Name), cfg.Plan.Seed, rec.Start.UnixNano())
		if try > 1 {
			prefix += fmt.Sprintf("-try%d", try)
		}
		h, err = Run(ctx, dial, cfg.Subject, cfg.Plan, prefix, cfg.Nemesis)
		if !errors.Is(err, ErrStart) || try >= max(cfg.Starts, 1) || ctx.Err() != nil {
			break
		}
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("start %d: %v: tried again", try, err))
	}
	out := workloads.RunOutcome{Dir: dir, Warnings: rec.Warnings}
	if errors.Is(err, ErrNemesis) && h != nil {
		out.Degraded = err
		rec.Warnings = append(rec.Warnings, err.Error())
	} else if err != nil {
		return out, err
	}
	if cfg.Scenario != "" {
		h.Header.Meta["scenario"] = cfg.Scenario
	}
	opts := Options()
	opts.Timeout = orDefault(cfg.CheckTimeout, DefaultCheckTimeout)
	opts.LossyFaults = cfg.LossyFaults
	checkCtx := ctx
	if ctx.Err() != nil {
		// Interrupted: the prefix still gets a short check, so that a
		// violation in it is reported (as the lock runner does).
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptCheckTimeout)
		defer cancel()
		checkCtx = c
	}
	rep := model.CheckContext(checkCtx, h, opts)
	if h.End != nil && h.End.Interrupted {
		rec.Warnings = append(rec.Warnings, "interrupted: the history is a prefix of the planned run; a valid verdict on it decides nothing")
	}
	if (h.End != nil && h.End.Interrupted) || out.Degraded != nil {
		if rep.Verdict == model.Valid {
			rep.Verdict = model.Unknown
		}
	}
	rec.CheckOptions, out.Warnings = &opts, rec.Warnings
	out.Summary, out.WriteErr = results.WriteRunContext(ctx, dir, results.RunArtifacts{
		Subject: cfg.Subject.Name, Release: cfg.Subject.Release, Workload: Workload, Seed: cfg.Plan.Seed,
		Config: rec, History: h, Report: rep, Options: opts, Commit: rec.Commit,
	})
	return out, nil
}

// orDefault is d, or def when d is 0.
func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// safeKey keeps letters, digits, '.', '_' and '-' of a subject's name for
// a key prefix ('@' and '+' become '_'); a permit semaphore's keys put the
// name in a hash tag, so no brace may stay.
func safeKey(name string) string {
	b := []byte(name)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	return string(b)
}

// partNames are the subjects process ids cycle through: the parts of a
// mixed fleet, else s alone.
func partNames(s Subject) []string {
	if len(s.Parts) == 0 {
		return []string{s.Name}
	}
	return names(s.Parts)
}
