package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/bisect"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// bisectCmd is `lockcheck bisect`: it replays a find (a run directory, or
// a plan and a seed) --replays times on each release it visits between
// --good and --bad, bisecting (package bisect), and prints the first
// release with the find and the last without, with the counts and the
// boundary's Fisher P. It exits 0 when it names the boundary, 1 when the
// ends are not as given (the good release shows the find, or the bad one
// does not), 2 on bad input, when --budget runs out or on SIGINT/SIGTERM.
func bisectCmd(ctx context.Context, e *env, args []string) (int, error) {
	f, err := parseBisectFlags(e, args)
	if err != nil {
		return exitUsage, err
	}
	find, err := f.loadFind()
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("bisect") {
		return exitValid, nil
	}
	sweepStale(ctx, e)
	budgeted, cancel := context.WithTimeout(ctx, f.budget)
	defer cancel()
	progress := newTally("lockcheck bisect", "releases", 0, true)
	p := &bisectPrinter{e: e, t: progress}
	cfg, err := f.bisectConfig(budgeted, find, bisectRuns{t: progress}, p)
	if err != nil {
		return exitUsage, err
	}
	progress.set(func(t *tally) { t.budget = f.budget })
	fmt.Fprintf(e.stderr, "lockcheck bisect: %s from %s to %s: %d releases (%d refused by the driver's range), %d replays each, seed %d\n",
		find.subject, f.good, f.bad, len(cfg.Releases), len(cfg.Refused), f.replays, find.draw.Seed)
	start := time.Now()
	stop := e.progress(progress.line)
	res, err := bisect.Run(budgeted, cfg)
	stop()
	if res == nil {
		return exitUsage, err
	}
	res.Subject, res.Bug, res.Command, res.Elapsed = find.subject, f.bug, hunt.ShellJoin(append([]string{"lockcheck", "bisect"}, f.args...)), time.Since(start)
	if werr := writeBisect(e, res, f.asJSON); werr != nil {
		return exitUsage, werr
	}
	switch {
	case interrupted(ctx):
		return exitInterrupted, nil
	case res.Interrupted:
		return exitUsage, fmt.Errorf("--budget %v ran out: %s", f.budget, res.Why)
	case !res.Found():
		return exitInvalid, nil
	}
	return exitValid, nil
}

// writeBisect prints res on stdout: the table, or JSON.
func writeBisect(e *env, res *bisect.Result, asJSON bool) error {
	if asJSON {
		return bisect.WriteJSON(e.stdout, res)
	}
	return bisect.WriteTable(e.stdout, res)
}

// bisectPrinter prints a bisection's progress on stderr, a line per
// release replayed and classed, and says in the progress line which
// release is replayed.
type bisectPrinter struct {
	e *env
	t *tally
}

func (p *bisectPrinter) Visiting(release string, n int) {
	p.t.set(func(t *tally) { t.now = fmt.Sprintf("replaying on %s", release) })
	fmt.Fprintf(p.e.stderr, "lockcheck bisect: %s: replaying the find %d times\n", release, n)
}

func (p *bisectPrinter) Visited(r bisect.Release) {
	p.t.set(func(t *tally) { t.done, t.now = t.done+1, "" })
	fmt.Fprintf(p.e.stderr, "lockcheck bisect: %s: %s\n", r.Name, r)
}

// bisectRuns counts the replays' runs, their ops and verdicts into a
// tally.
type bisectRuns struct {
	hunt.NopObserver
	t *tally
}

func (b bisectRuns) Recorded(subject string, out workloads.RunOutcome, err error) {
	b.t.recorded(out, err)
	if err == nil {
		b.t.judged(out.Summary.Report.Verdict)
	}
}
