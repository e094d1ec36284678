package hunt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
)

// Find is a violation a hunt found, and its shrunk reproduction.
type Find struct {
	// Run is the number of the search's run that found it (1: the first).
	Run int
	// First is the run that found it; Shrunk the simplest draw that still
	// failed, as the run that showed it (First when nothing was kept).
	First, Shrunk Trial
	// Steps are the shrink steps kept, in order.
	Steps []string
	// ShrinkRuns counts the runs shrinking made.
	ShrinkRuns int
	// Done says shrinking tried every step; false: time or ctx ran out
	// first, or the find was not shrunk (Config.Shrinks).
	Done bool
	// Command is the command line that reruns Shrunk: `lockcheck run` with
	// PlanFile, or `lockcheck run --scenario`. It exits 1 when the run
	// fails again; runs are not deterministic, so it may take a few.
	Command []string
	// PlanFile is plan.json in the hunt's directory, which Command reads
	// ("" for a scenario: it fixes its plan).
	PlanFile string
	// Plan is the JSON of Shrunk's plan (PlanFile's content); nil for a
	// semaphore or latch, whose runs draw their plan from the seed.
	Plan []byte
}

// CommandLine is Command as a POSIX shell reads it.
func (f *Find) CommandLine() string { return ShellJoin(f.Command) }

// Explanation says what went wrong in the shrunk run: which checker,
// which ops conflict and which fault windows overlap them.
func (f *Find) Explanation() string { return f.Shrunk.Why + "\n" + f.Shrunk.Report.String() }

// find writes plan.json (for a plain run) and returns the Find. On an
// error writing it the Find is still returned.
func (h *hunter) find(found, best Trial, kept []string, done bool) (*Find, error) {
	f := &Find{Run: h.tried.Runs, First: found, Shrunk: best, Steps: kept, ShrinkRuns: h.shrinkRuns, Done: done}
	plan := best.Draw.Plan
	switch {
	case h.ownPlan():
		// The kind's runner draws the plan from the seed: nothing to write.
		f.Command = Command(h.cfg.Subject, best.Draw, "", h.cfg.Redis, h.cfg.wired())
		return f, nil
	case best.Draw.Scenario != nil:
		plan = best.Draw.Scenario.Plan
	default:
		f.PlanFile = filepath.Join(h.base, "plan.json")
	}
	f.Command = Command(h.cfg.Subject, best.Draw, f.PlanFile, h.cfg.Redis, h.cfg.wired())
	var err error
	if f.Plan, err = workloads.EncodePlan(plan); err != nil {
		return f, err
	}
	if f.PlanFile != "" {
		err = os.WriteFile(f.PlanFile, f.Plan, 0o644)
	}
	return f, err
}

// Command is the command line that reruns d for subject: `lockcheck run`
// with the plan file planPath (--wire when wired: the plain runs were), or
// `lockcheck run --scenario`; redis, if
// set, is the --redis it ran on (redacted when it carries a password: the
// password then comes from $LOCKCHECK_REDIS_PASSWORD).
func Command(subject string, d Draw, planPath, redis string, wired bool) []string {
	args := []string{"lockcheck", "run"}
	if d.Scenario != nil {
		args = append(args, "--scenario", d.Scenario.Name)
	}
	args = append(args, "--subject", subject, "--seed", fmt.Sprint(d.Seed), "--duration", d.Duration.String())
	if planPath != "" {
		args = append(args, "--plan", planPath)
	}
	switch {
	case redis != "":
		args = append(args, "--redis", printableRedis(redis))
	case wired && d.Scenario == nil:
		args = append(args, "--wire")
	}
	return args
}

// printableRedis is a Redis address as it may be printed: a URL that
// carries a password is redacted.
func printableRedis(raw string) string {
	a, err := faults.ParseRedisAddr(raw)
	if err != nil || !a.HasPassword() {
		return raw
	}
	return a.Redacted()
}

// ShellJoin joins args into a command line a POSIX shell splits back into
// args (single quotes around any arg that needs them).
func ShellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,@") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
