package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// errTopology marks a scenario whose topology could not be built here (a
// missing binary, no nftables): the scenario is left out of the hunt.
var errTopology = errors.New("topology unavailable")

// huntRun is what one run of a draw found.
type huntRun struct {
	draw   huntDraw
	report model.Report
	dir    string
	// find says the verdict is one the subject must not get: for a plain
	// run invalid, for a scenario one that does not meet its expectation
	// (an unknown verdict is never a find).
	find bool
	// why says what was unexpected.
	why string
	// degraded is set when the run happened but not as asked (its faults
	// or its history failed): its verdict is unknown.
	degraded error
	elapsed  time.Duration
}

// exec runs d once into a fresh run directory and prints its progress line
// under label. An error is one that left no run to judge (an error wrapping
// errTopology: a scenario that cannot run here).
func (h *hunter) exec(ctx context.Context, label string, d huntDraw) (huntRun, error) {
	h.n++
	dir := filepath.Join(h.base, fmt.Sprintf("%03d-%s-%d", h.n, d.what(), d.seed))
	start := time.Now()
	var r huntRun
	var err error
	if d.scenario != nil {
		r, err = h.execScenario(ctx, d, dir)
	} else {
		r, err = h.execPlain(ctx, d, dir)
	}
	if err != nil {
		return r, err
	}
	r.draw, r.elapsed = d, time.Since(start)
	h.progress(label, r)
	return r, nil
}

// execPlain runs a plan on the hunt's Redis.
func (h *hunter) execPlain(ctx context.Context, d huntDraw, dir string) (huntRun, error) {
	cfg, err := h.flags.plainConfig(d.seed, d.duration, d.plan)
	if err != nil {
		return huntRun{}, err
	}
	cfg.Redis = h.tgt.desc
	// The dependencies `lockcheck run` gives the same target (reconnects
	// included), so the printed command reruns the same thing.
	sum, dir, degraded, err := runIn(ctx, h.quiet, cfg, dir, h.tgt.deps())
	if err != nil {
		return huntRun{}, err
	}
	r := huntRun{report: sum.Report, dir: dir, degraded: degraded}
	if sum.Report.Verdict == model.Invalid {
		r.find, r.why = true, "invalid ("+strings.Join(sum.Report.InvalidCheckers(), ", ")+")"
	}
	return r, nil
}

// execScenario runs a scenario as `lockcheck run --scenario` does, in its
// own topology, and judges it by the scenario's expectation.
func (h *hunter) execScenario(ctx context.Context, d huntDraw, dir string) (huntRun, error) {
	sc := *d.scenario
	p, err := sc.Prepare(ctx, scenario.Options{Subject: h.subject.Name, Seed: d.seed, Duration: d.duration})
	if err != nil {
		if ctx.Err() != nil {
			return huntRun{}, err
		}
		return huntRun{}, fmt.Errorf("%w: %v", errTopology, err)
	}
	defer p.Close()
	sum, dir, degraded, err := runIn(ctx, h.quiet, p.Config, dir, p.Deps)
	if err != nil {
		return huntRun{}, err
	}
	r := huntRun{report: sum.Report, dir: dir, degraded: degraded}
	exp := sc.Expectation(h.subject)
	if ok, why := exp.Match(sum.Report); !ok && degraded == nil && sum.Report.Verdict != model.Unknown {
		r.find, r.why = true, fmt.Sprintf("%s, not as expected (%s): %s", sum.Report.Verdict, exp.Label, why)
	}
	return r, nil
}

// progress prints one run's line: label, seed, what ran, verdict, elapsed.
func (h *hunter) progress(label string, r huntRun) {
	verdict := string(r.report.Verdict)
	switch {
	case r.find:
		verdict = "FOUND: " + r.why
	case r.degraded != nil:
		verdict += " (the run did not go as asked: " + r.degraded.Error() + ")"
	}
	fmt.Fprintf(h.e.stderr, "lockcheck hunt: %-9s seed %-7d %-32s %s  %v\n",
		label, r.draw.seed, r.draw.describe(), verdict, r.elapsed.Round(100*time.Millisecond))
}
