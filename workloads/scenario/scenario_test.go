package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// runScenario runs sc for subject with seed; before tearing the world down
// it checks that the nemesis healed everything: Redis runs unpaused and
// every client's proxy reaches it.
func runScenario(t *testing.T, name, subject string, seed int64) *workloads.Result {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := sc.Prepare(ctx, Options{Subject: subject, Seed: seed, CheckTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	start := time.Now()
	res, err := workloads.Run(ctx, p.Config, p.Deps)
	if err != nil {
		t.Fatalf("%s/%s: %v", name, subject, err)
	}
	t.Logf("%s/%s seed %d: %s in %v, %d ops (%d info), %d faults", name, subject, seed, res.Report.Verdict,
		time.Since(start).Round(time.Millisecond), res.Stats.Ops, res.Stats.Info, len(res.History.Faults))
	assertHealed(t, p.Env)
	return res
}

func assertHealed(t *testing.T, env *Env) {
	t.Helper()
	if env.Server != nil && (env.Server.Paused() || !env.Server.Running()) {
		t.Fatalf("redis-server left paused=%v running=%v", env.Server.Paused(), env.Server.Running())
	}
	assertClocksHealed(t, env)
	for i, l := range env.Links {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		o := env.Server.Options()
		o.Addr = l.Addr()
		c := redis.NewClient(o)
		err := c.Ping(ctx).Err()
		_ = c.Close()
		cancel()
		if err != nil {
			t.Fatalf("link %d (%s) not healed: %v", i, l.Name(), err)
		}
	}
}

func expectMet(t *testing.T, name, subject string, res *workloads.Result) {
	t.Helper()
	exp := expectation(t, name, subject)
	if ok, why := exp.Match(res.Report); !ok {
		t.Fatalf("%s/%s: want %q: %s\n%s", name, subject, exp.Label, why, res.Report)
	}
}

// expectation is what scenario name expects of subject.
func expectation(t *testing.T, name, subject string) Expect {
	t.Helper()
	sc, _ := Lookup(name)
	subj, err := catalog.Subjects.Lookup(subject)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Expectation(subj)
}

func TestSafeScenarios(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scenario, subject string
		seed              int64
	}{
		{"partition-short", "reentrant", 1},
		{"redis-pause-short", "fair", 2},
		{"restart-aof-always", "reentrant", 3},
	} {
		t.Run(c.scenario+"/"+c.subject, func(t *testing.T) {
			t.Parallel() // each run has a world of its own, and mostly waits
			res := runScenario(t, c.scenario, c.subject, c.seed)
			if len(injected(res.History)) == 0 {
				t.Fatal("no fault window recorded")
			}
			if res.Stats.Granted == 0 {
				t.Fatal("nothing granted")
			}
			expectMet(t, c.scenario, c.subject, res)
		})
	}
}

// TestUnsafeScenariosDetected checks the verdicts and that the written
// report explains the violation with the overlapping fault and the lease.
func TestUnsafeScenariosDetected(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		scenario, subject, fault string
	}{
		{"client-stall", "reentrant", "client-stall"},
		{"client-stall", "fenced", "client-stall"},
		{"partition-long", "fair", "proxy-blackhole"},
		{"restart-no-persistence", "reentrant", "redis-restart"},
	} {
		t.Run(c.scenario+"/"+c.subject, func(t *testing.T) {
			t.Parallel() // each run has a world of its own, and mostly waits
			res := runScenario(t, c.scenario, c.subject, 1)
			expectMet(t, c.scenario, c.subject, res)
			dir := t.TempDir()
			if _, err := results.WriteRun(dir, results.RunArtifacts{
				Subject: c.subject, Workload: res.Plan.Workload, Seed: 1,
				History: res.History, Report: res.Report, Options: res.CheckOptions,
			}); err != nil {
				t.Fatal(err)
			}
			md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{c.fault, "lease"} {
				if !strings.Contains(string(md), want) {
					t.Fatalf("summary.md does not mention %q:\n%s", want, md)
				}
			}
		})
	}
}

// TestMutantsFailUnsafeScenarios: a mutant must not pass a scenario that
// every lock fails.
func TestMutantsFailUnsafeScenarios(t *testing.T) {
	t.Parallel()
	for _, m := range []string{"mutant-check-then-set", "mutant-unlock-no-owner-check"} {
		t.Run(m, func(t *testing.T) {
			t.Parallel() // each run has a world of its own, and mostly waits
			res := runScenario(t, "client-stall", m, 1)
			if res.Report.Verdict != model.Invalid {
				t.Fatalf("mutant passed client-stall: %s\n%s", res.Report.Verdict, res.Report)
			}
			expectMet(t, "client-stall", m, res)
		})
	}
}

// injected returns h's fault windows without the harness's own hiccups:
// the faults the scenario injected.
func injected(h *model.History) []model.Fault {
	var out []model.Fault
	for _, f := range h.Faults {
		if f.Name != workloads.HiccupFault {
			out = append(out, f)
		}
	}
	return out
}
