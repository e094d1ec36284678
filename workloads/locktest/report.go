package locktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// PlanFile is the plan of a kept run, as `lockcheck run --plan` reads it.
const PlanFile = "plan.json"

// report writes f's run directory and logs the failure: what the verdict
// lacks, the checkers' explanation, the plan, the directory, and the
// command lines that rerun the run and the test (its first draw, seed,
// is the failure's before shrinking; steps are the shrink steps kept).
func (s *suite) report(t *testing.T, p planned, f *failure, steps []string, seed int64) {
	dir, err := s.keep(p, f)
	var b strings.Builder
	fmt.Fprintf(&b, "locktest: %s FAILED scenario %s (seed %d, a %v run): %s\n", s.lock.Name, p.sc.Name, f.seed, f.run, f.why)
	if !p.sc.Safe || p.req.Label() != scenario.ExpectValid.Label { // process-pause is safe, and required within its fault
		fmt.Fprintf(&b, "required: %s (a fault that breaks any lease lock excuses what it breaks, nothing more)\n", p.req.Label())
	}
	b.WriteString(explain(f.res.Report))
	plan, _ := json.Marshal(f.plan)
	shrunk := "nothing smaller failed"
	if len(steps) > 0 {
		shrunk = strings.Join(steps, ", ")
	}
	fmt.Fprintf(&b, "plan (shrunk: %s): %s\n", shrunk, plan)
	if err != nil {
		fmt.Fprintf(&b, "run directory: not kept: %v\n", err)
	} else {
		fmt.Fprintf(&b, "run directory: %s (open %s)\n", dir, filepath.Join(dir, results.HTMLFile))
		fmt.Fprintf(&b, "rerun this run (%s):\n  %s\n", failsAgain(p.sc), hunt.ShellJoin(s.rerun(p, f, dir)))
	}
	fmt.Fprintf(&b, "rerun this test (its first draw is this failure's, before shrinking): go test -run '%s' -%s=%d", runPattern(t.Name()), seedFlagName, seed)
	t.Log(b.String())
}

// failsAgain says how the rerun line of a failure of sc shows that it
// failed again.
func failsAgain(sc scenario.Scenario) string {
	if sc.Safe {
		return "exits 1 when it fails again"
	}
	return "it failed again when its " + model.CheckAllowance + " verdict is invalid"
}

// keep writes f's run into a directory under $TMPDIR/locktest that is not
// removed: config.json, history.jsonl, result.json, summary.md,
// history.html (no plots: they take long to draw; the rerun line draws
// them), plan.json and the test binary (which serves the lock to
// `lockcheck run --driver`).
func (s *suite) keep(p planned, f *failure) (string, error) {
	base := filepath.Join(os.TempDir(), "locktest", s.lock.Name)
	dir := results.RunDir(base, p.sc.Name, f.res.Start, f.seed)
	rec := workloads.RunRecord{Config: f.res.Config, Plan: &f.res.Plan, Subject: f.res.Subject, CheckOptions: &f.res.CheckOptions, Start: f.res.Start, Warnings: f.res.Warnings,
		Commit: results.BuildCommit()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := results.WriteRunContext(ctx, dir, results.RunArtifacts{
		Subject: s.lock.Name, Workload: p.sc.Name, Seed: f.seed,
		Config: rec, History: f.res.History, Report: f.res.Report, Options: f.res.CheckOptions, NoPlots: true, Commit: rec.Commit,
	})
	if err != nil {
		return dir, err
	}
	b, err := workloads.EncodePlan(f.plan)
	if err != nil {
		return dir, err
	}
	if err := os.WriteFile(filepath.Join(dir, PlanFile), b, 0o644); err != nil {
		return dir, err
	}
	return dir, keepBinary(filepath.Join(dir, s.lock.Name+".test"))
}

// keepBinary links (or copies) the running test binary to path.
func keepBinary(path string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if os.Link(exe, path) == nil {
		return nil
	}
	return results.CopyFile(exe, path, 0o755)
}

// rerun is the `lockcheck run` command line that reruns f: the scenario,
// seed, length and plan, with the lock served by the kept test binary.
func (s *suite) rerun(p planned, f *failure, dir string) []string {
	args := []string{"lockcheck", "run", "--scenario", p.sc.Name, "--subject", s.lock.Name,
		"--seed", fmt.Sprint(f.seed), "--duration", f.run.String(), "--plan", filepath.Join(dir, PlanFile)}
	if s.remote != nil {
		args = append(args, "--redis", s.remote.Desc)
	}
	return served(args, s.lock.Name, filepath.Join(dir, s.lock.Name+".test"), s.test)
}

// userFlags are the test binary's flags other than go test's, rapid's and
// locktest's own (given as -name=value), for the binary that serves the lock.
func userFlags() []string {
	var out []string
	for _, a := range os.Args[1:] {
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || strings.HasPrefix(name, "test.") || strings.HasPrefix(name, "rapid.") || strings.HasPrefix(name, "locktest.") {
			continue
		}
		out = append(out, a)
	}
	return out
}

// runPattern is the -run pattern that matches the test called name alone.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// driverJoin joins args into a line driver.SplitCommand splits back into
// args: it interprets blanks, quotes and backslashes only.
func driverJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\n'\"\\") {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
