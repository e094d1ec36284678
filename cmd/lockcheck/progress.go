package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/matrix"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// progressEvery is how often a run, hunt, matrix (nightly, scoreboard) or
// rediscovery whose output is not a terminal (a CI log) prints a progress
// line.
const progressEvery = 5 * time.Second

// progressLines prints line(elapsed) to w, one line every every, until
// stop is called; elapsed counts from now. One goroutine prints, and stop
// waits for it to end.
func progressLines(w io.Writer, every time.Duration, line func(elapsed time.Duration) string) (stop func()) {
	t := time.NewTicker(every)
	stopLines := progressOn(w, time.Now(), t.C, line)
	return func() {
		stopLines()
		t.Stop()
	}
}

// progressOn is progressLines at each tick of ticks (a tick's time minus
// start is the elapsed time): tests tick it by hand.
func progressOn(w io.Writer, start time.Time, ticks <-chan time.Time, line func(time.Duration) string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case now := <-ticks:
				fmt.Fprintln(w, line(now.Sub(start).Round(time.Second)))
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// progress starts a long command's progress lines on stderr when stderr is
// not a terminal; stop ends them (and does nothing on a terminal).
func (e *env) progress(line func(time.Duration) string) (stop func()) {
	if e.stderrTerminal {
		return func() {}
	}
	return e.stderrLines(line)
}

// stderrLines starts progress lines on stderr, which the printer and the
// command then share (shareStderr).
func (e *env) stderrLines(line func(time.Duration) string) (stop func()) {
	e.shareStderr()
	return progressLines(e.stderr, progressEvery, line)
}

// shareStderr makes e.stderr safe for goroutines to write together (a
// command, its progress printer): one write at a time, each line whole.
func (e *env) shareStderr() {
	if _, ok := e.stderr.(*lockedWriter); !ok {
		e.stderr = &lockedWriter{w: e.stderr}
	}
}

// lockedWriter serialises the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// historyCounter counts the ops and healed fault windows of a history as
// the runner writes it (JSON Lines, one record a line). It never fails a
// write.
type historyCounter struct {
	ops, faults atomic.Int64
}

var (
	opKey    = []byte(`{"op":`)
	faultKey = []byte(`{"fault":`)
)

func (c *historyCounter) Write(p []byte) (int, error) {
	c.ops.Add(int64(bytes.Count(p, opKey)))
	c.faults.Add(int64(bytes.Count(p, faultKey)))
	return len(p), nil
}

// runLine is the progress line of the run of subject planned for d: elapsed,
// ops recorded so far and fault windows healed ("checking" once d is
// past).
func (c *historyCounter) runLine(subject string, d time.Duration) func(time.Duration) string {
	return func(el time.Duration) string {
		checking := ""
		if el > d {
			checking = "; checking"
		}
		return fmt.Sprintf("lockcheck run: %s: %s of %s, %d ops, %d fault windows healed%s",
			subject, el, d, c.ops.Load(), c.faults.Load(), checking)
	}
}

// tally is what a hunt, a matrix or a rediscovery has done so far, as its
// progress observer hears it: the observer adds from the command's
// goroutine, the progress line reads from the printer's.
type tally struct {
	cmd string // "lockcheck hunt"
	mu  sync.Mutex
	// budget is the hunt's (0: none).
	budget time.Duration
	// unit counts what the command works through ("cells", "bugs"; "":
	// nothing but runs): done of total (0: not known).
	unit        string
	done, total int
	// runs says the line counts runs (a hunt's; a matrix counts cells).
	runs bool
	// ops of the runs recorded; opsSeen says some run reported its ops.
	ops     int64
	opsSeen bool
	// verdicts of the runs or cells judged; errors: runs that could not be
	// made; skipped: cells not run.
	verdicts        map[model.Verdict]int
	errors, skipped int
	// now says what runs now ("hunting the fixed release redisson@3.44.0").
	now string
}

// newTally is the tally of cmd, counting unit (total of them; 0: not
// known) and, if runs, the runs.
func newTally(cmd, unit string, total int, runs bool) *tally {
	return &tally{cmd: cmd, unit: unit, total: total, runs: runs, verdicts: map[model.Verdict]int{}}
}

// line is the progress line after elapsed: "lockcheck hunt: 1m5s of 10m0s:
// 6 runs, 48213 ops; 5 valid, 0 invalid, 1 unknown, 0 errors" (errors:
// runs that could not be made, cells that could not run).
func (t *tally) line(elapsed time.Duration) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", t.cmd, elapsed)
	if t.budget > 0 {
		fmt.Fprintf(&b, " of %s", t.budget)
	}
	b.WriteString(": ")
	var what []string
	if t.unit != "" {
		u := fmt.Sprintf("%d %s", t.done, t.unit)
		if t.total > 0 {
			u = fmt.Sprintf("%d of %d %s", t.done, t.total, t.unit)
		}
		what = append(what, u)
	}
	if t.skipped > 0 {
		what = append(what, fmt.Sprintf("%d skipped", t.skipped))
	}
	if t.runs {
		what = append(what, plural(t.verdicts[model.Valid]+t.verdicts[model.Invalid]+t.verdicts[model.Unknown]+t.errors, "run"))
	}
	if t.opsSeen {
		what = append(what, fmt.Sprintf("%d ops", t.ops))
	}
	if t.now != "" {
		what = append(what, t.now)
	}
	fmt.Fprintf(&b, "%s; %d valid, %d invalid, %d unknown, %s", strings.Join(what, ", "),
		t.verdicts[model.Valid], t.verdicts[model.Invalid], t.verdicts[model.Unknown], plural(t.errors, "error"))
	return b.String()
}

// recorded counts a run's ops, or an error that left no run to judge.
func (t *tally) recorded(out workloads.RunOutcome, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		t.errors++
		return
	}
	t.ops += int64(out.Summary.Stats.Ops.Total())
	t.opsSeen = true
}

// judged counts a verdict.
func (t *tally) judged(v model.Verdict) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.verdicts[v]++
}

// set changes the tally under its lock.
func (t *tally) set(f func(t *tally)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(t)
}

// huntProgress is a hunt.Observer that counts what it hears into a tally,
// then passes it on to the Observer it wraps.
type huntProgress struct {
	hunt.Observer
	t *tally
}

func (p huntProgress) Started(s hunt.Start) {
	p.t.set(func(t *tally) { t.budget = s.Budget })
	p.Observer.Started(s)
}

func (p huntProgress) Recorded(subject string, out workloads.RunOutcome, err error) {
	p.t.recorded(out, err)
	p.Observer.Recorded(subject, out, err)
}

func (p huntProgress) Ran(label string, tr hunt.Trial) {
	p.t.judged(tr.Report.Verdict)
	p.Observer.Ran(label, tr)
}

// matrixProgress is a matrix.Observer that counts the cells it hears of
// into a tally (unit "cells"), then passes them on.
type matrixProgress struct {
	matrix.Observer
	t *tally
}

func (p matrixProgress) Started(s matrix.Start) {
	p.t.set(func(t *tally) { t.total = s.Cells })
	p.Observer.Started(s)
}

func (p matrixProgress) Finished(c results.MatrixCell) {
	p.t.set(func(t *tally) {
		t.done++
		switch {
		case c.Skip != "":
			t.skipped++
		case c.Error != "":
			t.errors++
		default:
			t.verdicts[c.Verdict]++
		}
	})
	p.Observer.Finished(c)
}

// rediscoverProgress is a rediscover.Observer that counts the hunts' runs
// and the bugs judged (unit "bugs") into a tally and says which release is
// hunted, then passes it all on.
type rediscoverProgress struct {
	rediscover.Observer
	t *tally
}

func (p rediscoverProgress) Recorded(subject string, out workloads.RunOutcome, err error) {
	p.t.recorded(out, err)
	p.Observer.Recorded(subject, out, err)
}

func (p rediscoverProgress) Ran(label string, tr hunt.Trial) {
	p.t.judged(tr.Report.Verdict)
	p.Observer.Ran(label, tr)
}

func (p rediscoverProgress) Hunting(b rediscover.Bug, side rediscover.Side, rel rediscover.Release) {
	if rel.NotRun == "" {
		p.t.set(func(t *tally) { t.now = fmt.Sprintf("hunting %s's %s release %s", b.ID, side, rel.Name) })
	}
	p.Observer.Hunting(b, side, rel)
}

func (p rediscoverProgress) Judged(r rediscover.Row) {
	p.t.set(func(t *tally) { t.done, t.now = t.done+1, "" })
	p.Observer.Judged(r)
}
