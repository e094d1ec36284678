package rediscover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/redis/go-redis/v9"
)

// fakeClock is the rediscovery's clock in a test: it moves only when a
// fake run takes its duration.
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

// fakeFind is what a fake hunt finds, and in which of its runs.
type fakeFind struct {
	run      int  // 1: the first run of the hunt
	scenario bool // a scenario's run (else a plain one)
	// allowance is the fault-allowance checker's verdict ("": it did
	// not run).
	allowance model.Verdict
	steps     []string // the shrink steps kept
	// sig is the signature of the run's violation ("": defaultSig).
	sig string
}

// defaultSig is a fake find's signature unless it says: testBug's.
const defaultSig = "safety/double-grant/acquire/none"

// fakeHunts plays hunts without Redis: finds says, per subject and the
// seed of a hunt's first draw (Seed+Drawn), what a hunt finds (nil: nothing within its budget); every run
// takes one RunDuration on the fake clock.
type fakeHunts struct {
	clock *fakeClock
	finds func(subject string, seed int64) *fakeFind
	calls []hunt.Config
}

func (f *fakeHunts) hunt(ctx context.Context, cfg hunt.Config) (*hunt.Result, error) {
	f.calls = append(f.calls, cfg)
	if cfg.Same == nil || cfg.Shrinks == nil {
		return nil, fmt.Errorf("fake: hunt of %s without its shrink rules (Config.Same, Config.Shrinks)", cfg.Subject)
	}
	if _, err := cfg.Registry.Lookup(cfg.Subject); err != nil {
		return nil, fmt.Errorf("%w: %v", hunt.ErrConfig, err)
	}
	cfg.Observer.Started(hunt.Start{Subject: cfg.Subject, Seed: cfg.Seed, Budget: cfg.Budget, RunDuration: cfg.RunDuration})
	start := f.clock.now
	res := &hunt.Result{Subject: cfg.Subject, Seed: cfg.Seed, Dir: "/fake/" + cfg.Subject}
	first := cfg.Seed + int64(cfg.Drawn) // the seed of this hunt's first draw
	find := f.finds(cfg.Subject, first)
	for i := 1; f.clock.now.Add(cfg.RunDuration).Sub(start) <= cfg.Budget; i++ {
		f.clock.now = f.clock.now.Add(cfg.RunDuration)
		t := hunt.Trial{Draw: hunt.Draw{Seed: first + int64(i-1), Duration: cfg.RunDuration}, Report: model.Report{Verdict: model.Valid}}
		res.Tried.Runs, res.Tried.Last = i, t.Draw.Seed
		if find != nil && i == find.run {
			t = find.trial(t)
			cfg.Observer.Ran(fmt.Sprintf("run %d", i), t)
			f.clock.now = f.clock.now.Add(fakeShrink)
			cmd := []string{"lockcheck", "run", "--subject", cfg.Subject, "--seed", fmt.Sprint(t.Draw.Seed)}
			if find.scenario {
				cmd = append(cmd, "--scenario", t.Draw.Scenario.Name)
			}
			res.Find = &hunt.Find{Run: i, First: t, Shrunk: t, Steps: find.steps, Command: cmd}
			break
		}
		cfg.Observer.Ran(fmt.Sprintf("run %d", i), t)
	}
	res.Elapsed = f.clock.now.Sub(start)
	return res, nil
}

// fakeShrink is how long a fake hunt takes to shrink a find.
const fakeShrink = 10 * time.Second

// trial is t turned into the find f describes.
func (f fakeFind) trial(t hunt.Trial) hunt.Trial {
	t.Find, t.Why = true, "invalid (linearizable)"
	t.Dir = fmt.Sprintf("/fake/run-%d", t.Draw.Seed)
	if f.scenario {
		sc := scenario.Scenario{Name: "renewal-refused", Duration: t.Draw.Duration}
		t.Draw.Scenario = &sc
	}
	sig := f.sig
	if sig == "" {
		sig = defaultSig
	}
	t.Report = model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid,
		Examples: []model.Example{exampleFor(sig)}}}}
	if f.allowance != "" {
		t.Report.Results = append(t.Report.Results, model.Result{Checker: model.CheckAllowance, Verdict: f.allowance})
	}
	return t
}

// fakeRegistry holds subjects named names that no test opens.
func fakeRegistry(t *testing.T, names ...string) *subject.Registry {
	t.Helper()
	var subs []subject.Subject
	for _, n := range names {
		subs = append(subs, subject.Subject{Name: n, Open: func(context.Context, redis.UniversalClient) (impl.Maker, error) {
			return nil, fmt.Errorf("fake subject %s: not to be opened", n)
		}})
	}
	reg, err := subject.NewRegistry(subs...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// recorder is an Observer that keeps what it heard.
type recorder struct {
	hunt.NopObserver
	hunting []string
	judged  []Row
	ran     int
}

func (r *recorder) Hunting(b Bug, side Side, rel Release) {
	r.hunting = append(r.hunting, fmt.Sprintf("%s %s %s", b.ID, side, rel.Subject))
}
func (r *recorder) Judged(row Row)                 { r.judged = append(r.judged, row) }
func (r *recorder) Ran(label string, t hunt.Trial) { r.ran++ }

// testBug is a catalog entry of the fake library "lib".
func testBug(id string) Bug {
	return Bug{
		ID: id, Library: "Lib", Subject: "lib", Buggy: "1.0.0", Fixed: "1.0.1",
		Sources: []string{"https://example.org/lib/CHANGELOG.md"}, Says: "Fixed - " + id,
		Property: model.ClassSafety, Breaks: "two holders", Trigger: "a failed renewal",
		Signature: model.Signature{Class: model.ClassSafety, Shape: model.ShapeDoubleGrant}, // any ops, any fault
	}
}

// exampleFor is a violation whose signature is text, a signature without
// wildcards (its fault none, or beyond one fault).
func exampleFor(text string) model.Example {
	s, err := model.ParseSignature(text)
	if err != nil {
		panic(err)
	}
	ex := model.Example{Class: s.Class, Shape: s.Shape}
	for _, o := range s.Ops {
		kind, call, _ := strings.Cut(o, ".")
		op := model.Op{Kind: model.Kind(kind)}
		if call != "" {
			op.Form = call + "()"
		}
		ex.Ops = append(ex.Ops, op)
	}
	if f, ok := strings.CutPrefix(s.Fault, "beyond:"); ok {
		ex.Faults, ex.Beyond = []model.Fault{{Name: f}}, true
	}
	return ex
}

// writePlan writes hunt's plan of seed 9 to a file of the test's and
// returns its path, for a find's --plan.
func writePlan(t *testing.T) string {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "plan.json")
	b, err := workloads.EncodePlan(hunt.Plan(9))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return plan
}
