// Package kindtest_test proves that a new object kind is one registration:
// a fake kind, registered with scenario.RegisterRunner and nothing else,
// runs through the matrix, a scenario run, a hunt and a rediscovery.
package kindtest_test

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/matrix"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

const (
	fakeKind subject.Kind = "fake-kind"
	fakeName              = "fake-object"
)

// fakeRunner runs fakeName (and fakeName@VERSION) without Redis: each run
// records a one-hold lock history, checks it and writes its run directory.
type fakeRunner struct {
	mu   sync.Mutex
	runs []scenario.Run
}

func (f *fakeRunner) Named(name string) (subject.Subject, bool) {
	base, v := subject.SplitVersion(name)
	if base != fakeName {
		return subject.Subject{}, false
	}
	return subject.Subject{Name: name, Kind: fakeKind, Doc: "a fake object", NoWatchdog: true, Release: v}, true
}

func (f *fakeRunner) Expectation(scenario.Scenario, subject.Subject) scenario.Expect {
	return scenario.ExpectValid
}

func (f *fakeRunner) RunInto(ctx context.Context, r scenario.Run, dir string) (workloads.RunOutcome, error) {
	f.mu.Lock()
	f.runs = append(f.runs, r)
	f.mu.Unlock()
	lease := int64(time.Second)
	h := &model.History{
		Header: model.Header{Version: model.FormatVersion, Ends: true, Object: model.ObjectLock,
			Meta: map[string]string{"subject": r.Subject, "seed": strconv.FormatInt(r.Seed, 10), "workload": "fake"}},
		Ops: []model.Op{
			{Process: 1, Lock: "k", Kind: model.Acquire, Outcome: model.OK, Call: 1, Return: 2, Lease: lease},
			{Process: 1, Lock: "k", Kind: model.Release, Outcome: model.OK, Call: 3, Return: 4},
		},
		End: &model.End{At: 5},
	}
	opts := model.Options{}
	rep := model.CheckContext(ctx, h, opts)
	cfg := map[string]any{"config": map[string]any{"subject": r.Subject, "workload": "fake", "seed": r.Seed}}
	out := workloads.RunOutcome{Dir: dir}
	var err error
	out.Summary, err = results.WriteRunContext(ctx, dir, results.RunArtifacts{
		Subject: r.Subject, Workload: "fake", Seed: r.Seed, Config: cfg, History: h, Report: rep, Options: opts,
	})
	return out, err
}

// ran returns the runs made so far and forgets them.
func (f *fakeRunner) ran() []scenario.Run {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.runs
	f.runs = nil
	return out
}

var (
	fake         = &fakeRunner{}
	registerOnce sync.Once
)

// register adds the fake kind: its one registration.
func register() { registerOnce.Do(func() { scenario.RegisterRunner(fakeKind, fake) }) }

// quiet is a scenario the fake kind runs under (the fake ignores faults).
func quiet(t *testing.T) scenario.Scenario {
	t.Helper()
	sc, err := scenario.Lookup("no-faults")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestFakeKindScenarioRun(t *testing.T) {
	register()
	s, ok := scenario.Named(fakeName)
	if !ok || s.Kind != fakeKind {
		t.Fatalf("scenario.Named(%q) = %+v, %v", fakeName, s, ok)
	}
	sc := quiet(t)
	out, err := scenario.RunInto(context.Background(), s, scenario.Run{Subject: fakeName, Seed: 7, Scenario: &sc}, t.TempDir())
	if err != nil || out.Summary.Report.Verdict != model.Valid {
		t.Fatalf("RunInto: %v, verdict %v", err, out.Summary.Report.Verdict)
	}
	if got := fake.ran(); len(got) != 1 || got[0].Seed != 7 || got[0].Scenario == nil {
		t.Fatalf("runner saw %+v, want one run of seed 7 under a scenario", got)
	}
	if e := sc.Expectation(s); e.Label != scenario.ExpectValid.Label {
		t.Errorf("Expectation = %q, want the runner's %q", e.Label, scenario.ExpectValid.Label)
	}
}

func TestFakeKindMatrix(t *testing.T) {
	register()
	s, _ := scenario.Named(fakeName)
	dir := t.TempDir()
	res, err := matrix.Run(context.Background(), matrix.Config{
		Kind: matrix.Nightly, Scenarios: []scenario.Scenario{quiet(t)}, Subjects: []subject.Subject{s},
		Seeds: []int64{1, 2}, Dir: dir, Executor: matrix.ScenarioExecutor{Dir: dir},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Err(); err != nil {
		t.Fatalf("matrix verdict: %v", err)
	}
	if got := fake.ran(); len(got) != 2 {
		t.Fatalf("runner saw %d runs, want 2 (one per seed)", len(got))
	}
}

// fakeTarget stands for a Redis the fake kind never dials.
func fakeTarget() *target.Target { return &target.Target{Desc: "fake"} }

func TestFakeKindHunt(t *testing.T) {
	register()
	res, err := hunt.Run(context.Background(), hunt.Config{
		Subject: fakeName, Budget: 2 * hunt.MinRun, RunDuration: hunt.MinRun, Seed: 3,
		Out: t.TempDir(), Target: fakeTarget(), Scenarios: []scenario.Scenario{quiet(t)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Find != nil {
		t.Fatalf("a valid fake found %+v", res.Find)
	}
	got := fake.ran()
	if len(got) == 0 {
		t.Fatal("the hunt ran nothing in the fake kind's runner")
	}
	for _, r := range got {
		if r.Subject != fakeName {
			t.Errorf("hunt ran %q, want %q", r.Subject, fakeName)
		}
	}
}

func TestFakeKindRediscover(t *testing.T) {
	register()
	bug := rediscover.Bug{ID: "fake-1", Library: "fake", Subject: fakeName, Buggy: "1.0", Fixed: "1.1",
		Property: model.ClassSafety, Says: "a fake bug", Trigger: "none"}
	rep, err := rediscover.Run(context.Background(), rediscover.Config{
		Bugs: []rediscover.Bug{bug}, Catalog: []rediscover.Bug{bug}, Budget: 2 * hunt.MinRun, RunDuration: hunt.MinRun, Seed: 5,
		Out: t.TempDir(),
		Hunt: func(ctx context.Context, c hunt.Config) (*hunt.Result, error) {
			c.Target = fakeTarget()
			return hunt.Run(ctx, c)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for _, r := range fake.ran() {
		subjects = append(subjects, r.Subject)
	}
	joined := strings.Join(subjects, " ")
	if !strings.Contains(joined, fakeName+"@1.0") || !strings.Contains(joined, fakeName+"@1.1") {
		t.Fatalf("rediscovery ran %v, want both releases of %s (rows %+v)", subjects, fakeName, rep.Rows)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Buggy.NotRun != "" || rep.Rows[0].Fixed.NotRun != "" {
		t.Fatalf("rediscovery rows %+v: want both releases run", rep.Rows)
	}
}

// TestPermitsKindIsItsObject: the subject kind of a semaphore or latch is
// the object kind its histories declare and the scoreboard reads
// (subject does not import model, so the two words are kept equal here).
func TestPermitsKindIsItsObject(t *testing.T) {
	if string(subject.KindPermits) != model.ObjectPermits {
		t.Fatalf("subject.KindPermits %q != model.ObjectPermits %q", subject.KindPermits, model.ObjectPermits)
	}
}
