package hunt

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// fakeClock is a hunt's clock in a test: it moves only when a fake run
// takes its duration.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeExec runs no Redis: a run takes its draw's duration on the fake
// clock, and fails when fails says so.
type fakeExec struct {
	clock *fakeClock
	// fails decides a run's verdict; try counts the runs of equal draws
	// (1: the first).
	fails func(d Draw, try int) bool
	// check, if set, is Check.
	check func(d Draw) error
	// broken are the scenarios whose topology cannot be built.
	broken map[string]bool
	// errAt, if > 0, makes that run (1: the first) fail with errRun.
	errAt int
	// before, if set, is called before each run with its number.
	before func(n int)
	// shows, if set, names the shape of a failing run's one violation
	// (none: a report without examples).
	shows func(d Draw) model.Shape

	runs  []Draw
	tries map[string]int
}

var errRun = fmt.Errorf("fake: the run could not be made")

func (f *fakeExec) Check(d Draw) error {
	if f.check != nil {
		return f.check(d)
	}
	return nil
}

func (f *fakeExec) Exec(ctx context.Context, d Draw, dir string) (Trial, error) {
	f.runs = append(f.runs, d)
	n := len(f.runs)
	if f.before != nil {
		f.before(n)
	}
	switch {
	case n == f.errAt:
		return Trial{}, errRun
	case d.Scenario != nil && f.broken[d.Scenario.Name]:
		return Trial{}, fmt.Errorf("%w: no %s here", ErrTopology, d.Scenario.Name)
	}
	if f.tries == nil {
		f.tries = map[string]int{}
	}
	key := drawKey(d)
	f.tries[key]++
	f.clock.advance(d.Duration)
	t := Trial{Dir: dir, Report: model.Report{Verdict: model.Valid}}
	if f.fails != nil && f.fails(d, f.tries[key]) {
		t.Find, t.Why, t.Report.Verdict = true, "invalid (fake)", model.Invalid
		if f.shows != nil {
			t.Report.Results = []model.Result{{Checker: model.CheckMutualExclusion, Verdict: model.Invalid,
				Examples: []model.Example{{Class: model.ClassSafety, Shape: f.shows(d)}}}}
		}
	}
	return t, nil
}

// drawKey identifies a draw by everything that decides its run.
func drawKey(d Draw) string {
	sc := ""
	if d.Scenario != nil {
		sc = d.Scenario.Name
	}
	p, ph := d.Plan, "nil"
	if p.Phases != nil {
		ph = fmt.Sprintf("%+v", *p.Phases)
	}
	p.Phases = nil // its address differs between equal plans
	return fmt.Sprintf("%d|%s|%v|%+v|%s", d.Seed, sc, d.Duration, p, ph)
}

// recorder is an Observer that keeps what it heard as lines.
type recorder struct {
	NopObserver
	started []Start
	events  []string
}

func (r *recorder) Started(s Start) { r.started = append(r.started, s) }
func (r *recorder) Ran(label string, t Trial) {
	r.events = append(r.events, fmt.Sprintf("ran %s seed %d find %v", label, t.Draw.Seed, t.Find))
}
func (r *recorder) Skipped(name string, _ error) { r.events = append(r.events, "skipped "+name) }
func (r *recorder) Shrunk(step string, kept bool, tries int) {
	r.events = append(r.events, fmt.Sprintf("shrunk %s kept %v tries %d", step, kept, tries))
}
func (r *recorder) ShrinkStopped(step string, err error) {
	r.events = append(r.events, fmt.Sprintf("shrink stopped %s: %v", step, err))
}

// fakeConfig is a hunt of the reentrant subject through x on its clock,
// with no scenarios.
func fakeConfig(out string, x *fakeExec, obs Observer) Config {
	return Config{
		Subject: "reentrant", Budget: 10 * time.Minute, RunDuration: 10 * time.Second, Seed: 1, Out: out,
		Scenarios: []scenario.Scenario{}, Observer: obs, Executor: x, now: x.clock.Now,
	}
}

// fakeScenarios are scenarios for the drawer only (the fake executor runs
// nothing).
func fakeScenarios() []scenario.Scenario {
	return []scenario.Scenario{
		{Name: "fake-a", Duration: 5 * time.Second, Plan: workloads.Plan{Workload: "fake", Processes: 3}},
		{Name: "fake-b", Duration: 7 * time.Second, Plan: workloads.Plan{Workload: "fake", Processes: 4}},
	}
}
