package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// huntCmd is `lockcheck hunt`: it draws seeds, plans and scenarios until a
// run finds a violation or the budget runs out. A find is shrunk and
// printed as a `lockcheck run` command that reruns the shrunk draw (exit
// 1); a budget spent without a find exits 0; bad input, a Redis that cannot
// be started or reached, or a run that could not be made exits 2.
func huntCmd(ctx context.Context, e *env, args []string) (int, error) {
	f, err := parseHuntFlags(e, args)
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("hunt") {
		return exitValid, nil
	}
	sweepStale(ctx, e)
	h, err := newHunter(ctx, e, f)
	if err != nil {
		return exitUsage, err
	}
	defer h.close()
	found, err := h.search(ctx, newDrawer(f.seed, h.scenarios))
	switch {
	case found != nil:
		best, steps, done := h.shrink(ctx, *found)
		if err := h.reportFind(*found, best, steps, done); err != nil {
			return exitUsage, err
		}
		return exitInvalid, nil
	case interrupted(ctx):
		h.reportTried(e.stderr, "interrupted after")
		reportInterrupted(e, "hunt", []string{h.base}, nil)
		return exitInterrupted, nil
	case err != nil:
		h.reportTried(e.stderr, "stopped by an error after")
		return exitUsage, err
	}
	h.reportTried(e.stdout, "no violation in")
	return exitValid, nil
}

// hunter runs a hunt's draws on one subject.
type hunter struct {
	flags      huntFlags
	subject    workloads.Subject
	e          *env // progress lines go to e.stderr, the outcome to e.stdout
	quiet      *env // what runIn prints: its warnings, on stderr
	tgt        *target
	base       string // the hunt's directory: run directories, plan.json
	scenarios  []scenario.Scenario
	deadline   time.Time // the end of the budget
	n          int       // run directories made
	shrinkRuns int
	skipped    map[string]error // scenarios that cannot run here
	tried      huntTally
}

// newHunter opens the Redis of the plain runs and the hunt's directory; the
// budget starts once they are ready.
func newHunter(ctx context.Context, e *env, f huntFlags) (*hunter, error) {
	subj, err := workloads.Subjects.Lookup(f.subject)
	if err != nil {
		return nil, usagef("--subject: %v", err)
	}
	h := &hunter{flags: f, subject: subj, e: e, quiet: &env{stdout: discard{}, stderr: e.stderr}, skipped: map[string]error{}}
	if f.redis == "" {
		h.scenarios = huntScenarios(subj)
	}
	rf := runFlags{redis: f.redis}
	if h.tgt, err = rf.openTarget(ctx, faults.PersistNone); err != nil {
		return nil, err
	}
	h.base = results.RunDir(f.out, "hunt", time.Now(), f.seed)
	if err := os.MkdirAll(h.base, 0o755); err != nil {
		_ = h.tgt.Close()
		return nil, err
	}
	fmt.Fprintf(e.stderr, "lockcheck hunt: subject %s, seed %d, budget %v, plain runs of %v against %s, %s; runs in %s\n",
		f.subject, f.seed, f.budget, f.runDuration, h.tgt.desc, scenarioNote(h.scenarios, f.redis), h.base)
	h.deadline = time.Now().Add(f.budget)
	return h, nil
}

func (h *hunter) close() { _ = h.tgt.Close() }

// scenarioNote says which scenarios the hunt may draw.
func scenarioNote(scs []scenario.Scenario, redis string) string {
	switch {
	case redis != "":
		return "no scenarios (they run on redis-servers lockcheck starts, not on --redis)"
	case len(scs) == 0:
		return "no scenarios (none expects this subject valid)"
	}
	return fmt.Sprintf("1 draw in %d one of %d scenarios it must pass", scenarioShare, len(scs))
}

// search runs draws until one is a find (returned), the budget runs out or
// ctx ends (nil, nil), or a run cannot be made (the error).
func (h *hunter) search(ctx context.Context, d *drawer) (*huntRun, error) {
	for ctx.Err() == nil {
		seed, sc := d.draw()
		r, ok, err := h.runDrawn(ctx, seed, sc)
		if err != nil || !ok {
			return nil, err
		}
		h.tried.add(r)
		if r.find {
			return &r, nil
		}
	}
	return nil, nil
}

// runDrawn runs a drawn seed and scenario (see resolve). ok is false when
// the budget has no room left for a run.
func (h *hunter) runDrawn(ctx context.Context, seed int64, sc *scenario.Scenario) (huntRun, bool, error) {
	label := fmt.Sprintf("run %d", h.tried.runs+1)
	d, ok := h.resolve(seed, sc, time.Until(h.deadline))
	if !ok {
		return huntRun{}, false, nil
	}
	r, err := h.exec(ctx, label, d)
	if errors.Is(err, errTopology) {
		h.skipped[sc.Name] = err
		fmt.Fprintf(h.e.stderr, "lockcheck hunt: scenario %s cannot run here; left out from now on: %v\n", sc.Name, err)
		if d, ok = h.resolve(seed, nil, time.Until(h.deadline)); !ok {
			return huntRun{}, false, nil
		}
		r, err = h.exec(ctx, label, d)
	}
	return r, err == nil, err
}

// resolve turns a drawn seed and scenario into the run to make with left of
// the budget: a scenario that cannot run here or does not fit in left
// becomes a plain run, and a plain run is cut to what is left (at least
// minHuntRun; ok is false when not even that fits).
func (h *hunter) resolve(seed int64, sc *scenario.Scenario, left time.Duration) (huntDraw, bool) {
	if sc != nil && h.skipped[sc.Name] == nil && sc.Duration <= left {
		return huntDraw{seed: seed, scenario: sc, duration: sc.Duration}, true
	}
	if left < minHuntRun {
		return huntDraw{}, false
	}
	d := min(h.flags.runDuration, left.Truncate(100*time.Millisecond))
	return huntDraw{seed: seed, duration: d, plan: huntPlan(seed)}, true
}
