package hunt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// The search stops at its first find, and shrinking starts from it.
func TestSearchStopsAtFirstFind(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), fails: func(d Draw, _ int) bool { return d.Seed >= 4 }}
	rec := &recorder{}
	res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, rec))
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v, find %v", err, res)
	}
	if res.Find.Run != 4 || res.Tried.Runs != 4 || res.Find.First.Draw.Seed != 4 || res.Tried.First != 1 || res.Tried.Last != 4 {
		t.Errorf("find in run %d of %d (seeds %d..%d), first seed %d; want run 4, seed 4",
			res.Find.Run, res.Tried.Runs, res.Tried.First, res.Tried.Last, res.Find.First.Draw.Seed)
	}
	want := []string{"ran run 1 seed 1 find false", "ran run 2 seed 2 find false", "ran run 3 seed 3 find false", "ran run 4 seed 4 find true"}
	if !slices.Equal(rec.events[:4], want) {
		t.Errorf("events %q, want them to start with %q", rec.events, want)
	}
	if len(rec.started) != 1 || rec.started[0].Dir != res.Dir || rec.started[0].Seed != 1 {
		t.Errorf("Started %+v, result dir %s", rec.started, res.Dir)
	}
	for _, d := range x.runs[4:] {
		if d.Seed != 4 {
			t.Fatalf("shrinking ran seed %d, not the find's", d.Seed)
		}
	}
}

// Without a find the search runs until the budget is spent: the last run
// is cut to what is left, and none is shorter than MinRun.
func TestSearchStopsOnBudget(t *testing.T) {
	x := &fakeExec{clock: newFakeClock()}
	cfg := fakeConfig(t.TempDir(), x, nil)
	cfg.Budget = 31500 * time.Millisecond
	res, err := Run(t.Context(), cfg)
	if err != nil || res.Find != nil || res.Interrupted {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	var got []time.Duration
	for _, d := range x.runs {
		got = append(got, d.Duration)
	}
	// 10+10+10 leaves 1.5s: less than MinRun, so no fourth run.
	if want := []time.Duration{10 * time.Second, 10 * time.Second, 10 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("run durations %v, want %v", got, want)
	}
	if res.Elapsed != 30*time.Second || res.Tried.Runs != 3 || res.Tried.Plain != 3 {
		t.Errorf("elapsed %v, tally %+v", res.Elapsed, res.Tried)
	}

	x = &fakeExec{clock: newFakeClock()}
	cfg = fakeConfig(t.TempDir(), x, nil)
	cfg.Budget = 24 * time.Second
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	if n := len(x.runs); n != 3 || x.runs[2].Duration != 4*time.Second {
		t.Errorf("%d runs, last %v; want 3, the last cut to the 4s left", n, x.runs[n-1].Duration)
	}
}

// ctx ending stops the search: the result says interrupted, not clean.
func TestSearchStopsOnContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	x := &fakeExec{clock: newFakeClock(), before: func(n int) {
		if n == 3 {
			cancel()
		}
	}}
	res, err := Run(ctx, fakeConfig(t.TempDir(), x, nil))
	if err != nil || !res.Interrupted || res.Find != nil || len(x.runs) != 3 {
		t.Errorf("Run: %v, interrupted %v, %d runs; want interrupted after 3", err, res.Interrupted, len(x.runs))
	}
}

// A run that cannot be made stops the search with its error and a result.
func TestSearchStopsOnRunError(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), errAt: 2}
	res, err := Run(t.Context(), fakeConfig(t.TempDir(), x, nil))
	if !errors.Is(err, errRun) || res == nil || res.Tried.Runs != 1 || res.Interrupted {
		t.Errorf("Run: %v, %+v; want errRun after 1 run", err, res)
	}
}

// A hunt's draws are a function of its seed: the same seed and verdicts
// give the same runs and the same find; another seed other runs.
func TestHuntIsDeterministicInItsSeed(t *testing.T) {
	hunt := func(seed int64) ([]string, *Find) {
		x := &fakeExec{clock: newFakeClock(), fails: func(d Draw, _ int) bool {
			return d.Scenario == nil && d.Plan.Processes >= 5 && d.Seed%3 == 0
		}}
		cfg := fakeConfig(t.TempDir(), x, nil)
		cfg.Seed, cfg.Scenarios = seed, fakeScenarios()
		res, err := Run(t.Context(), cfg)
		if err != nil || res.Find == nil {
			t.Fatalf("seed %d: %v, %+v", seed, err, res)
		}
		var keys []string
		for _, d := range x.runs {
			keys = append(keys, drawKey(d))
		}
		return keys, res.Find
	}
	a, fa := hunt(7)
	b, fb := hunt(7)
	if !slices.Equal(a, b) || !slices.Equal(fa.Steps, fb.Steps) || !reflect.DeepEqual(fa.Shrunk.Draw, fb.Shrunk.Draw) {
		t.Errorf("seed 7 twice:\n%q\n%q", a, b)
	}
	if c, _ := hunt(8); slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 ran the same draws")
	}
	if !strings.Contains(strings.Join(a, "\n"), "|fake-") {
		t.Errorf("no scenario drawn:\n%q", a)
	}
}

// A scenario whose topology cannot be built is left out from then on and
// its draw becomes a plain run of the same seed.
func TestScenarioThatCannotRunIsLeftOut(t *testing.T) {
	x := &fakeExec{clock: newFakeClock(), broken: map[string]bool{"fake-a": true}}
	rec := &recorder{}
	cfg := fakeConfig(t.TempDir(), x, rec)
	cfg.Budget, cfg.Scenarios = 3*time.Minute, fakeScenarios()[:1]
	res, err := Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(rec.events, "\n"), "skipped fake-a"); n != 1 {
		t.Errorf("skipped %d times, want once: %q", n, rec.events)
	}
	if res.Skipped["fake-a"] == nil || !errors.Is(res.Skipped["fake-a"], ErrTopology) {
		t.Errorf("Skipped = %v", res.Skipped)
	}
	if res.Tried.Plain != res.Tried.Runs || res.Tried.Runs == 0 {
		t.Errorf("tally %+v: every run should be plain", res.Tried)
	}
	tried, drawn := 0, 0
	for _, d := range x.runs {
		if d.Scenario != nil {
			tried++
		}
	}
	dr := newDrawer(cfg.Seed, cfg.Scenarios)
	for range res.Tried.Runs {
		if _, sc := dr.draw(); sc != nil {
			drawn++
		}
	}
	if tried != 1 || drawn < 2 {
		t.Errorf("the scenario was drawn %d times and tried %d; want it tried once", drawn, tried)
	}
}

// The hunt's directory is made under Out and holds plan.json after a find.
func TestFindWritesPlanFile(t *testing.T) {
	out := t.TempDir()
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }}
	res, err := Run(t.Context(), fakeConfig(out, x, nil))
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v", err)
	}
	f := res.Find
	if !strings.HasPrefix(res.Dir, out) || f.PlanFile != res.Dir+"/plan.json" {
		t.Errorf("dir %s, plan file %s", res.Dir, f.PlanFile)
	}
	b, err := os.ReadFile(f.PlanFile)
	if err != nil || string(b) != string(f.Plan) {
		t.Errorf("plan.json: %v\n%s\nwant\n%s", err, b, f.Plan)
	}
	want := "lockcheck run --subject reentrant --seed 1 --duration 2s --plan " + f.PlanFile
	if got := f.CommandLine(); got != want {
		t.Errorf("command %s, want %s", got, want)
	}
	if !strings.Contains(f.Explanation(), "invalid (fake)") {
		t.Errorf("explanation %q", f.Explanation())
	}
}

// A config that cannot run is rejected before anything starts.
func TestRunRejectsBadConfig(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"no subject":       func(c *Config) { c.Subject = "" },
		"a list":           func(c *Config) { c.Subject = "reentrant,fair" },
		"unknown subject":  func(c *Config) { c.Subject = "nope" },
		"no budget":        func(c *Config) { c.Budget = 0 },
		"short runs":       func(c *Config) { c.RunDuration = time.Second },
		"runs past budget": func(c *Config) { c.Budget = 5 * time.Second },
		"bad redis":        func(c *Config) { c.Executor, c.Redis = nil, "redis://[::1" },
	} {
		x := &fakeExec{clock: newFakeClock()}
		cfg := fakeConfig(t.TempDir(), x, nil)
		edit(&cfg)
		if res, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) || res != nil || len(x.runs) != 0 {
			t.Errorf("%s: %v (result %v, %d runs), want ErrConfig", name, err, res, len(x.runs))
		}
	}
}

// A hunt without an executor starts one Redis at one address: it takes the
// subjects that need one address (external drivers), refuses the others
// that need a topology of their own.
func TestHuntTakesOneAddressSubjects(t *testing.T) {
	open := func(context.Context, redis.UniversalClient) (impl.Maker, error) { return nil, nil }
	reg, err := subject.NewRegistry(
		subject.Subject{Name: "driver", Kind: subject.KindExternal, Needs: subject.NeedsOneAddress, Open: open},
		subject.Subject{Name: "redlock-ish", Kind: subject.KindReference, Needs: subject.NeedsRedlockNodes, Open: open},
	)
	if err != nil {
		t.Fatal(err)
	}
	for name, wantErr := range map[string]bool{"driver": false, "redlock-ish": true} {
		cfg := Config{Subject: name, Registry: reg, Budget: time.Minute, RunDuration: 10 * time.Second, Scenarios: []scenario.Scenario{}}
		if _, err := cfg.resolve(); (err != nil) != wantErr || (err != nil && !errors.Is(err, ErrConfig)) {
			t.Errorf("%s: %v, want an error: %v", name, err, wantErr)
		}
	}
}

// Two hunts started at the same moment on the same seed (two subjects
// hunted side by side) each get a directory of their own.
func TestHuntsOfOneMomentKeepApart(t *testing.T) {
	out := t.TempDir()
	var dirs []string
	for range 2 {
		x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return true }}
		res, err := Run(t.Context(), fakeConfig(out, x, nil))
		if err != nil || res.Find == nil {
			t.Fatalf("Run: %v", err)
		}
		dirs = append(dirs, res.Dir)
	}
	if dirs[0] == dirs[1] {
		t.Errorf("both hunts ran in %s", dirs[0])
	}
}

// A hunt with Drawn set goes on from where an earlier hunt of the same
// seed left off: the same seeds and the same scenarios, dealt from the
// same deck, as one hunt that had not stopped.
func TestDrawnGoesOnWhereTheHuntLeftOff(t *testing.T) {
	hunt := func(drawn int, runs int) []string {
		x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return false }}
		cfg := fakeConfig(t.TempDir(), x, nil)
		cfg.Scenarios, cfg.Drawn = fakeScenarios(), drawn
		cfg.Budget = time.Duration(runs) * cfg.RunDuration
		if _, err := Run(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range x.runs {
			out = append(out, fmt.Sprintf("%d %s", d.Seed, d.What()))
		}
		return out
	}
	whole := hunt(0, 12)
	rest := hunt(5, 7)
	if len(rest) == 0 || !slices.Equal(rest, whole[5:5+len(rest)]) {
		t.Errorf("hunt on from draw 5: %q, want what one hunt drew from there: %q", rest, whole[5:])
	}
	x := &fakeExec{clock: newFakeClock(), fails: func(Draw, int) bool { return false }}
	cfg := fakeConfig(t.TempDir(), x, nil)
	cfg.Drawn = -1
	if _, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) {
		t.Errorf("Drawn -1: %v, want ErrConfig", err)
	}
}
