package hunt

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// hunter runs one hunt's draws through an executor.
type hunter struct {
	cfg        Config
	subject    subject.Subject
	exec       Executor
	obs        Observer
	base       string    // the hunt's directory: run directories, plan.json
	start      time.Time // the budget's start
	deadline   time.Time // the budget's end
	n          int       // run directories made
	shrinkRuns int
	skipped    map[string]error // scenarios that cannot run here
	tried      Tally
}

// newHunter makes the hunt's directory and tells the observer; the budget
// starts then.
func newHunter(cfg Config, subj subject.Subject, exec Executor, desc string) (*hunter, error) {
	h := &hunter{cfg: cfg, subject: subj, exec: exec, obs: cfg.Observer, skipped: map[string]error{}}
	// A directory of its own (NewRunDir), so that hunts started in the same
	// second on the same seed (two subjects side by side) never share one.
	var err error
	if h.base, err = results.NewRunDir(cfg.Out, "hunt", cfg.now(), cfg.Seed, ""); err != nil {
		return nil, err
	}
	h.obs.Started(Start{Subject: cfg.Subject, Seed: cfg.Seed, Budget: cfg.Budget, RunDuration: cfg.RunDuration,
		Target: desc, Redis: cfg.Redis, Scenarios: cfg.Scenarios, Dir: h.base})
	h.start = cfg.now()
	h.deadline = h.start.Add(cfg.Budget)
	return h, nil
}

// run searches and, on a find, shrinks it and writes plan.json.
func (h *hunter) run(ctx context.Context) (*Result, error) {
	found, err := h.search(ctx, newDrawer(h.cfg.Seed, h.cfg.Scenarios).skip(h.cfg.Drawn))
	res := &Result{Subject: h.cfg.Subject, Seed: h.cfg.Seed, Dir: h.base, Tried: h.tried, Skipped: h.skipped}
	if found != nil {
		best, steps, done := *found, []string(nil), false
		if h.cfg.Shrinks == nil || h.cfg.Shrinks(*found) {
			best, steps, done = h.shrink(ctx, *found)
		}
		res.Find, err = h.find(*found, best, steps, done)
	} else {
		res.Interrupted = ctx.Err() != nil
	}
	res.Elapsed = h.cfg.now().Sub(h.start)
	return res, err
}

// left is what is left of the budget, or of a shrink's deadline.
func (h *hunter) left(deadline time.Time) time.Duration { return deadline.Sub(h.cfg.now()) }

// search runs draws until one is a find (returned), the budget runs out or
// ctx ends (nil, nil), or a run cannot be made (the error).
func (h *hunter) search(ctx context.Context, d *drawer) (*Trial, error) {
	for ctx.Err() == nil {
		seed, sc := d.draw()
		t, ok, err := h.runDrawn(ctx, seed, sc)
		if err != nil || !ok {
			return nil, err
		}
		h.tried.add(t)
		if t.Find {
			return &t, nil
		}
	}
	return nil, nil
}

// runDrawn runs a drawn seed and scenario (see resolve). ok is false when
// the budget has no room left for a run.
func (h *hunter) runDrawn(ctx context.Context, seed int64, sc *scenario.Scenario) (Trial, bool, error) {
	label := fmt.Sprintf("run %d", h.tried.Runs+1)
	d, ok := h.resolve(seed, sc, h.left(h.deadline))
	if !ok {
		return Trial{}, false, nil
	}
	t, err := h.run1(ctx, label, d)
	if errors.Is(err, ErrTopology) {
		h.skipped[sc.Name] = err
		h.obs.Skipped(sc.Name, err)
		if d, ok = h.resolve(seed, nil, h.left(h.deadline)); !ok {
			return Trial{}, false, nil
		}
		t, err = h.run1(ctx, label, d)
	}
	return t, err == nil, err
}

// resolve turns a drawn seed and scenario into the run to make with left of
// the budget: a scenario that cannot run here or does not fit in left
// becomes a plain run, and a plain run is cut to what is left (at least
// MinRun; ok is false when not even that fits).
func (h *hunter) resolve(seed int64, sc *scenario.Scenario, left time.Duration) (Draw, bool) {
	if sc != nil && h.skipped[sc.Name] == nil && sc.Duration <= left {
		return Draw{Seed: seed, Scenario: sc, Duration: sc.Duration}, true
	}
	if left < MinRun {
		return Draw{}, false
	}
	d := min(h.cfg.RunDuration, left.Truncate(100*time.Millisecond))
	return Draw{Seed: seed, Duration: d, Plan: h.plan(seed)}, true
}

// plan is the plan of a plain draw of seed: Plan(seed) with the hunt's
// threads per process, or ones drawn from seed (DrawThreads) when the
// subject can host several owners in a process (their siblings waiting on
// a long hold's lock: WaitSiblings), and lock objects shared
// or not as drawn from seed (DrawObjects) when the subject can share them,
// and call forms varied or not as drawn (DrawForms) when it can vary them;
// a read-write lock's plan is the read-write workload's one draw in two
// (DrawReadWrite), and a hunt workload's plan one lock or several as drawn
// (DrawKeys), its holders nesting holds of several or not as drawn
// (DrawNest), and its first long hold before its overruns or not as drawn
// (DrawLongHoldFirst).
func (h *hunter) plan(seed int64) workloads.Plan {
	if h.ownPlan() {
		return PermitsPlan
	}
	p := Plan(seed)
	if h.subject.ReadWrite {
		p = DrawReadWrite(seed, p)
	}
	p = DrawLongHoldFirst(seed, DrawNest(seed, DrawKeys(seed, p)))
	switch {
	case h.cfg.ThreadsPerProcess > 0:
		p.ThreadsPerProcess = h.cfg.ThreadsPerProcess
	case h.subject.HostsOwners():
		p = DrawThreads(seed, p)
	}
	p = WaitSiblings(p)
	if h.subject.SharesObjects() {
		p = DrawObjects(seed, p)
	}
	if h.subject.VariesForms() {
		p = DrawForms(seed, p)
	}
	return p
}

// run1 runs d once into a fresh run directory and tells the observer under
// label. An error is one that left no run to judge.
func (h *hunter) run1(ctx context.Context, label string, d Draw) (Trial, error) {
	h.n++
	dir := filepath.Join(h.base, fmt.Sprintf("%03d-%s-%d", h.n, d.What(), d.Seed))
	start := h.cfg.now()
	t, err := h.exec.Exec(ctx, d, dir)
	if err != nil {
		return t, err
	}
	t.Draw, t.Elapsed = d, h.cfg.now().Sub(start)
	h.obs.Ran(label, t)
	return t, nil
}

// ownPlan reports whether the subject's kind has a runner of its own
// (scenario.RunnerOf), which draws each run's plan from its seed.
func (h *hunter) ownPlan() bool {
	_, ok := scenario.RunnerOf(h.subject)
	return ok
}
