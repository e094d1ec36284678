package locktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Hunt spends budget looking for a violation in lock, for a nightly `go
// test` ($LOCKCHECK_BUDGET overrides budget): hunt.Run draws plain runs of
// the hunt workload (storms, quiet spells, long holds, overruns,
// cancelled acquires) and the scenarios that fit the lock, from one seed
// (Seed; else from the clock, logged): the must-pass ones, and the unsafe
// ones (Sentinel failovers included), which fail only when something goes
// beyond the fault's allowance (see Run). Scenarios whose topology cannot
// be built here (no nftables, no clock shim) are logged and left out. A
// find is shrunk and fails the test with the checkers' explanation, the
// kept run directory (history.html) and the `lockcheck run` line that
// reruns it; a budget spent without a find passes, with what was tried
// logged, and removes the hunt's run directories: a nightly hunt that
// finds nothing leaves nothing under $TMPDIR/locktest.
func Hunt(t *testing.T, lock Lock, budget time.Duration, opts ...Option) {
	t.Helper()
	if *serveFlag {
		serve(lock)
	}
	cfg, err := huntConfig(t, lock, budget, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Budget+hunt.MaxShrink+time.Minute)
	defer cancel()
	res, err := hunt.Run(ctx, cfg)
	if res == nil {
		t.Fatalf("locktest: hunt %s: %v", lock.Name, err)
	}
	tr := res.Tried
	t.Logf("locktest: hunt %s: seed %d, %d runs in %v (%d plain), seeds %d..%d; runs in %s", lock.Name, res.Seed, tr.Runs, res.Elapsed.Round(time.Second), tr.Plain, tr.First, tr.Last, res.Dir)
	for name, why := range res.Skipped {
		t.Logf("locktest: scenario %s could not run here: %v", name, why)
	}
	if err != nil {
		t.Errorf("locktest: hunt %s: %v", lock.Name, err)
	}
	if f := res.Find; f != nil {
		t.Error(huntReport(lock, t.Name(), res, f))
		return
	}
	if err == nil {
		if err := os.RemoveAll(res.Dir); err != nil {
			t.Logf("locktest: hunt %s found nothing; its runs could not be removed: %v", lock.Name, err)
		}
	}
}

// huntConfig is the hunt.Config of a Hunt of lock.
func huntConfig(t *testing.T, lock Lock, budget time.Duration, opts []Option) (hunt.Config, error) {
	if err := lock.validate(); err != nil {
		return hunt.Config{}, err
	}
	if err := checkClaims(lock); err != nil {
		return hunt.Config{}, err
	}
	c, err := newConfig(append([]Option{Budget(budget)}, opts...))
	if err != nil {
		return hunt.Config{}, err
	}
	reg, err := lock.registry()
	if err != nil {
		return hunt.Config{}, err
	}
	cfg := hunt.Config{
		Subject: lock.Name, Registry: reg, Budget: c.budget, Seed: c.seed,
		RunDuration: min(max(c.budget/4, hunt.MinRun), hunt.DefaultRunDuration, max(c.budget, hunt.MinRun)),
		Out:         filepath.Join(os.TempDir(), "locktest", lock.Name),
		Redis:       os.Getenv(EnvRedis),
		Serve:       catalog.ServedBy(serveCommand(t.Name())), Served: true,
	}
	if cfg.RunDuration > cfg.Budget {
		cfg.Budget = cfg.RunDuration
	}
	if cfg.Redis == "" {
		cfg.Scenarios = huntScenarios(lock.subject(), c.scenarios)
	}
	return cfg, nil
}

// huntScenarios are the scenarios a Hunt of subj draws (hunt.Scenarios);
// only, if not empty, keeps those it names.
func huntScenarios(subj subject.Subject, only []string) []scenario.Scenario {
	out := []scenario.Scenario{}
	for _, sc := range hunt.Scenarios(subj) {
		if len(only) == 0 || slices.Contains(only, sc.Name) {
			out = append(out, sc)
		}
	}
	return out
}

// huntReport says what a hunt found: the explanation, the shrinking, the
// run directory and the line that reruns it with the lock served by the
// test binary (kept in the hunt's directory).
func huntReport(lock Lock, test string, res *hunt.Result, f *hunt.Find) string {
	var b strings.Builder
	fmt.Fprintf(&b, "locktest: hunt %s FOUND in run %d (seed %d): %s\n%s\n", lock.Name, f.Run, f.First.Draw.Seed, f.Shrunk.Why, explain(f.Shrunk.Report))
	var plan bytes.Buffer
	if json.Compact(&plan, f.Plan) != nil {
		plan.Write(f.Plan)
	}
	fmt.Fprintf(&b, "shrunk in %d runs: %s\nplan: %s\n", f.ShrinkRuns, strings.Join(f.Steps, ", "), plan.Bytes())
	fmt.Fprintf(&b, "run directory: %s (open %s)\n", f.Shrunk.Dir, filepath.Join(f.Shrunk.Dir, "history.html"))
	bin := filepath.Join(res.Dir, lock.Name+".test")
	if err := keepBinary(bin); err != nil {
		fmt.Fprintf(&b, "rerun: the test binary could not be kept (%v): %s\n", err, f.CommandLine())
		return b.String()
	}
	again := "exits 1 when it fails again"
	if sc := f.Shrunk.Draw.Scenario; sc != nil {
		again = failsAgain(*sc)
	}
	fmt.Fprintf(&b, "rerun this run (%s):\n  %s\n", again, hunt.ShellJoin(served(f.Command, lock.Name, bin, test)))
	return b.String()
}

// served is a `lockcheck run` command line with its --subject NAME
// replaced by the lock served by the test binary bin.
func served(command []string, name, bin, test string) []string {
	serve := append([]string{bin, "-test.run=" + runPattern(test), "-" + serveFlagName}, userFlags()...)
	var out []string
	for i := 0; i < len(command); i++ {
		if command[i] == "--subject" && i+1 < len(command) {
			out = append(out, "--driver", driverJoin(serve), "--driver-name", name)
			i++
			continue
		}
		out = append(out, command[i])
	}
	return out
}
