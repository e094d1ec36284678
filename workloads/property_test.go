package workloads

import (
	"context"
	"flag"
	"os"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// setFlag sets a rapid flag for one test and restores it afterwards.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag %s", name)
	}
	old := f.Value.String()
	if err := f.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Value.Set(old) })
}

// lockIsAMutex is the property: a plan drawn from any workload, run briefly
// on subject against a real redis-server, gives a valid history.
func lockIsAMutex(t *testing.T, subject string, runFor time.Duration) {
	s := startRedis(t)
	rapid.Check(t, func(rt *rapid.T) {
		w := rapid.SampledFrom(Workloads()).Draw(rt, "workload")
		plan := w.Gen.Draw(rt, "plan")
		cfg := DefaultRunConfig()
		cfg.Subject, cfg.Plan, cfg.Duration = subject, &plan, runFor
		cfg.Seed = rapid.Int64Range(1, 1<<20).Draw(rt, "seed")
		cfg.CheckTimeout = 20 * time.Second
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := Run(ctx, cfg, Deps{Dial: dialer(s), Registry: catalog.Subjects, Serve: catalog.SelfServer()})
		if err != nil {
			rt.Fatalf("run: %v", err)
		}
		if res.Report.Verdict != model.Valid {
			// rapid keeps a smaller failing case only if it fails with the
			// same message: keep the message stable, log the details.
			rt.Logf("%s on %s:\n%s", subject, plan.Workload, res.Report)
			rt.Fatalf("verdict %s", res.Report.Verdict)
		}
	})
}

// TestPropertyReentrantIsAMutex draws a few plans (rapid.checks 4 by default
// here; raise it with -rapid.checks) and runs each on the reentrant lock.
func TestPropertyReentrantIsAMutex(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	if !flagSet("rapid.checks") {
		setFlag(t, "rapid.checks", "4")
	}
	lockIsAMutex(t, "reentrant", 700*time.Millisecond)
}

// TestPropertyMutant runs the same property against the subject named by
// LOCKCHECK_PROPERTY_SUBJECT (e.g. mutant-reentry-no-count): it must fail,
// and rapid prints the shrunk plan. Skipped unless the variable is set:
//
//	LOCKCHECK_PROPERTY_SUBJECT=mutant-reentry-no-count go test -run TestPropertyMutant -v ./workloads/
func TestPropertyMutant(t *testing.T) {
	subject := os.Getenv("LOCKCHECK_PROPERTY_SUBJECT")
	if subject == "" {
		t.Skip("set LOCKCHECK_PROPERTY_SUBJECT to a subject to see a shrunk counterexample")
	}
	setFlag(t, "rapid.nofailfile", "true")
	if !flagSet("rapid.checks") {
		setFlag(t, "rapid.checks", "20")
	}
	lockIsAMutex(t, subject, 700*time.Millisecond)
}

// flagSet reports whether name was given on the command line.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
