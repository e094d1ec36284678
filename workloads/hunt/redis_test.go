package hunt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// A hunt on the redis-server it starts finds a broken lock of a registry
// of the caller's own (as a user's `go test` has), shrinks it, and returns
// a kept run directory, an explanation and a rerun command.
func TestRunFindsUsersBrokenLockOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a redis-server (skipped with -short)")
	}
	mine, err := catalog.Subjects.Lookup("mutant-check-then-set")
	if err != nil {
		t.Fatal(err)
	}
	mine.Name, mine.Kind, mine.Served = "my-lock", subject.KindUser, false // in process: the test binary serves no "my-lock"
	reg, err := subject.NewRegistry(mine)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	res, err := Run(t.Context(), Config{Subject: "my-lock", Registry: reg, Budget: 30 * time.Second,
		RunDuration: 2 * time.Second, Seed: 11, Out: t.TempDir(), Observer: rec, Scenarios: []scenario.Scenario{}})
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v, %+v\n%q", err, res, rec.events)
	}
	f := res.Find
	if !f.First.Find || f.First.Report.Verdict != model.Invalid || len(rec.started) != 1 || !strings.Contains(rec.started[0].Target, "redis-server") {
		t.Errorf("first %+v, started %+v", f.First, rec.started)
	}
	for _, name := range []string{results.ConfigFile, results.HistoryFile, results.HTMLFile, results.ResultFile} {
		if _, err := os.Stat(filepath.Join(f.Shrunk.Dir, name)); err != nil {
			t.Errorf("the shrunk run directory lacks %s: %v", name, err)
		}
	}
	run, err := results.LoadRun(f.Shrunk.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var cfg workloads.RunRecord
	if err := run.DecodeConfig(&cfg); err != nil || cfg.Config.Seed != f.Shrunk.Draw.Seed || cfg.Plan == nil {
		t.Errorf("config.json: %+v, %v", cfg, err)
	}
	// The find's seed: 11, or a later run's when a loaded machine let run 1 miss.
	if !strings.Contains(f.CommandLine(), fmt.Sprintf("lockcheck run --subject my-lock --seed %d ", f.Shrunk.Draw.Seed)) || f.Explanation() == "" {
		t.Errorf("command %s, explanation %q", f.CommandLine(), f.Explanation())
	}
	if testing.Verbose() {
		t.Logf("explanation:\n%s", f.Explanation())
	}
}

// A scenario whose set-up the subject's adapter refuses (an older
// release's driver that cannot serve its topology or credentials) is a
// scenario that cannot run here (ErrTopology), which the hunt leaves out,
// not an error that ends the hunt.
func TestScenarioTheAdapterRefusesCannotRun(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a redis-server (skipped with -short)")
	}
	refused := fmt.Errorf("%w: hello refused: no such topology in this release", impl.ErrAdapter)
	refusing := subject.Subject{Name: "refusing-lock", Kind: subject.KindUser,
		Open: func(context.Context, redis.UniversalClient) (impl.Maker, error) { return nil, refused }}
	reg, err := subject.NewRegistry(refusing)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := target.Start(t.Context(), faults.PersistNone)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tgt.Close() })
	sc, err := scenario.Lookup("no-faults")
	if err != nil {
		t.Fatal(err)
	}
	x := &redisExecutor{name: refusing.Name, subject: refusing, tgt: tgt, registry: reg, obs: NopObserver{}}
	_, err = x.Exec(t.Context(), Draw{Seed: 1, Scenario: &sc, Duration: 2 * time.Second}, filepath.Join(t.TempDir(), "run"))
	if !errors.Is(err, ErrTopology) || !errors.Is(err, impl.ErrAdapter) {
		t.Fatalf("Exec: %v, want ErrTopology wrapping the adapter's refusal", err)
	}
}
