package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// huntPrinter prints a hunt (hunt.Observer): progress on stderr, the
// outcome on stdout.
type huntPrinter struct {
	ctx context.Context
	e   *env
}

var _ hunt.Observer = (*huntPrinter)(nil)

func (p *huntPrinter) Started(s hunt.Start) {
	fmt.Fprintf(p.e.stderr, "lockcheck hunt: subject %s, seed %d, budget %v, plain runs of %v against %s, %s; runs in %s\n",
		s.Subject, s.Seed, s.Budget, s.RunDuration, s.Target, scenarioNote(s), s.Dir)
}

// scenarioNote says which scenarios the hunt may draw.
func scenarioNote(s hunt.Start) string {
	switch {
	case s.Redis != "":
		return "no scenarios (they run on redis-servers lockcheck starts, not on --redis)"
	case len(s.Scenarios) == 0:
		return "no scenarios (none expects this subject valid)"
	}
	return fmt.Sprintf("1 draw in %d one of %d scenarios where it can be caught", hunt.ScenarioShare, len(s.Scenarios))
}

// Recorded prints what `lockcheck run` prints of a run directory.
func (p *huntPrinter) Recorded(subject string, out workloads.RunOutcome, err error) {
	printRunNotes(p.ctx, p.e.stderr, subject, out, err)
}

// Ran prints one run's line: label, seed, what ran, verdict, elapsed.
func (p *huntPrinter) Ran(label string, t hunt.Trial) {
	verdict := string(t.Report.Verdict)
	switch {
	case t.Find:
		verdict = "FOUND: " + t.Why
	case t.Degraded != nil:
		verdict += " (the run did not go as asked: " + t.Degraded.Error() + ")"
	}
	fmt.Fprintf(p.e.stderr, "lockcheck hunt: %-9s seed %-7d %-32s %s  %v\n",
		label, t.Draw.Seed, t.Draw.Describe(), verdict, t.Elapsed.Round(100*time.Millisecond))
}

func (p *huntPrinter) Skipped(scenario string, err error) {
	fmt.Fprintf(p.e.stderr, "lockcheck hunt: scenario %s cannot run here; left out from now on: %v\n", scenario, err)
}

func (p *huntPrinter) Shrunk(step string, kept bool, tries int) {
	if kept {
		fmt.Fprintf(p.e.stderr, "lockcheck hunt: shrink: %s: kept (failed in most of %d runs)\n", step, tries)
		return
	}
	fmt.Fprintf(p.e.stderr, "lockcheck hunt: shrink: %s: not kept (too many of %d runs passed)\n", step, tries)
}

func (p *huntPrinter) ShrinkStopped(step string, err error) {
	fmt.Fprintf(p.e.stderr, "lockcheck hunt: shrinking stopped: %s: %v\n", step, err)
}

// reportTried writes what the hunt tried to w: runs, plain and scenario
// runs, seeds, and the runs that decided nothing.
// outcome heads the line: "no violation in", "a violation after".
func (p *huntPrinter) reportTried(w io.Writer, res *hunt.Result, outcome string) {
	t := res.Tried
	var scs []string
	for name, n := range t.Scenarios {
		scs = append(scs, fmt.Sprintf("%s ×%d", name, n))
	}
	sort.Strings(scs)
	fmt.Fprintf(w, "lockcheck hunt: %s: %s %s over %v: %s of the hunt workload, %s",
		res.Subject, outcome, plural(t.Runs, "run"), res.Elapsed.Round(time.Second), plural(t.Plain, "plain run"), plural(t.Runs-t.Plain, "scenario run"))
	if len(scs) > 0 {
		fmt.Fprintf(w, " (%s)", strings.Join(scs, ", "))
	}
	if t.Runs > 0 {
		fmt.Fprintf(w, "; seeds %d..%d", t.First, t.Last)
	}
	fmt.Fprintln(w)
	for _, name := range slices.Sorted(maps.Keys(res.Skipped)) {
		fmt.Fprintf(w, "scenario %s could not run here: %v\n", name, res.Skipped[name])
	}
	if len(t.Unknown) > 0 {
		fmt.Fprintf(w, "%s decided nothing (verdict unknown; not finds): %s\n", plural(len(t.Unknown), "run"), strings.Join(t.Unknown, ", "))
	}
	if len(t.Degraded) > 0 {
		fmt.Fprintf(w, "%s did not go as asked (no verdict; not finds): %s\n", plural(len(t.Degraded), "run"), strings.Join(t.Degraded, ", "))
	}
	fmt.Fprintf(w, "runs in: %s\n", res.Dir)
}

// reportFind prints a find: what was found, how it was shrunk, the command
// that reruns the shrunk draw, its run directory and its plan.
func (p *huntPrinter) reportFind(res *hunt.Result) {
	w, f := p.e.stdout, res.Find
	fmt.Fprintf(w, "lockcheck hunt: FOUND in run %d: %s on %s, seed %d: %s\n",
		f.Run, res.Subject, f.First.Draw.Describe(), f.First.Draw.Seed, f.First.Why)
	cut := ""
	if !f.Done {
		cut = "; shrinking ran out of time"
	}
	if len(f.Steps) == 0 {
		fmt.Fprintf(w, "not shrunk (%s tried%s)\n", plural(f.ShrinkRuns, "shrink run"), cut)
	} else {
		fmt.Fprintf(w, "shrunk in %s to %s: %s%s\n", plural(f.ShrinkRuns, "run"), f.Shrunk.Draw.Describe(), strings.Join(f.Steps, ", "), cut)
	}
	fmt.Fprintf(w, "reproduce (exits 1 when the run fails again):\n  %s\n", f.CommandLine())
	fmt.Fprintf(w, "run directory: %s\n", f.Shrunk.Dir)
	switch {
	case f.PlanFile != "":
		fmt.Fprintf(w, "plan (%s):\n%s", f.PlanFile, f.Plan)
	case f.Plan != nil:
		fmt.Fprintf(w, "plan (fixed by the scenario):\n%s", f.Plan)
	}
	p.reportTried(p.e.stderr, res, "a violation after")
}

// plural is "1 run", "2 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
