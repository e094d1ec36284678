package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/matrix"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// syncBuffer is a strings.Builder safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// progressStart is when the progress tests' printers start.
var progressStart = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// ticked runs line's printer, ticks it at each of at (from progressStart),
// stops it and returns the lines printed: one per tick, no more, and no
// goroutine left behind.
func ticked(t *testing.T, line func(time.Duration) string, at ...time.Duration) []string {
	t.Helper()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var out syncBuffer
	ticks := make(chan time.Time)
	stop := progressOn(&out, progressStart, ticks, line)
	for _, d := range at {
		ticks <- progressStart.Add(d) // unbuffered: the printer has it
	}
	stop() // waits for the printer, which printed every tick it took
	select {
	case ticks <- progressStart:
		t.Error("the printer still takes ticks after stop")
	default:
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

// Off a terminal a run prints progress lines: elapsed, ops and fault
// windows counted from the history as it is written, "checking" once its
// duration is past.
func TestProgressRun(t *testing.T) {
	var c historyCounter
	history := `{"header":{"version":1}}` + "\n" + okAcq + okRel + `{"fault":{"name":"redis-pause","start":1,"end":2}}` + "\n"
	for _, chunk := range strings.SplitAfter(history, "\n") {
		if _, err := c.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	got := ticked(t, c.runLine("reentrant", 30*time.Second), 5*time.Second, 35200*time.Millisecond)
	want := []string{
		"lockcheck run: reentrant: 5s of 30s, 2 ops, 1 fault windows healed",
		"lockcheck run: reentrant: 35s of 30s, 2 ops, 1 fault windows healed; checking",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// heard is an observer of hunts, matrices and rediscoveries that keeps
// the names of the calls it heard (the progress observers pass them on).
type heard struct {
	hunt.NopObserver
	calls []string
}

func (h *heard) Started(hunt.Start)                           { h.calls = append(h.calls, "Started") }
func (h *heard) Recorded(string, workloads.RunOutcome, error) { h.calls = append(h.calls, "Recorded") }
func (h *heard) Ran(string, hunt.Trial)                       { h.calls = append(h.calls, "Ran") }
func (h *heard) Skipped(string, error)                        { h.calls = append(h.calls, "Skipped") }
func (h *heard) Hunting(rediscover.Bug, rediscover.Side, rediscover.Release) {
	h.calls = append(h.calls, "Hunting")
}
func (h *heard) Judged(rediscover.Row) { h.calls = append(h.calls, "Judged") }

// matrixHeard is heard's matrix.Observer.
type matrixHeard struct {
	matrix.NopObserver
	calls []string
}

func (h *matrixHeard) Started(matrix.Start)              { h.calls = append(h.calls, "Started") }
func (h *matrixHeard) Finished(results.MatrixCell)       { h.calls = append(h.calls, "Finished") }
func (h *matrixHeard) Rerunning(results.MatrixCell, int) { h.calls = append(h.calls, "Rerunning") }

// outcome is a recorded run of ok + fail ops.
func outcome(ok, fail int) workloads.RunOutcome {
	var o workloads.RunOutcome
	o.Summary.Stats.Ops = results.Counts{OK: ok, Fail: fail}
	return o
}

func trial(v model.Verdict) hunt.Trial { return hunt.Trial{Report: model.Report{Verdict: v}} }

// A hunt's progress line: elapsed of the budget, the runs so far, their
// ops and verdicts, runs that could not be made as errors; the printer it
// wraps hears everything.
func TestProgressHunt(t *testing.T) {
	inner := &heard{}
	tl := newTally("lockcheck hunt", "", 0, true)
	var obs hunt.Observer = huntProgress{inner, tl}
	first := ticked(t, tl.line, 0)
	obs.Started(hunt.Start{Budget: 10 * time.Minute})
	obs.Recorded("reentrant", outcome(100, 5), nil)
	obs.Ran("run 1", trial(model.Valid))
	obs.Recorded("reentrant", outcome(40, 0), nil)
	obs.Ran("run 2", trial(model.Invalid))
	obs.Skipped("redis-failover", errors.New("no sentinel"))
	obs.Recorded("reentrant", workloads.RunOutcome{}, errors.New("no redis"))
	got := ticked(t, tl.line, 65*time.Second)
	want := []string{
		"lockcheck hunt: 0s: 0 runs; 0 valid, 0 invalid, 0 unknown, 0 errors",
		"lockcheck hunt: 1m5s of 10m0s: 3 runs, 145 ops; 1 valid, 1 invalid, 0 unknown, 1 error",
	}
	if g := append(first, got...); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if calls := strings.Join(inner.calls, " "); calls != "Started Recorded Ran Recorded Ran Skipped Recorded" {
		t.Errorf("the wrapped observer heard %s", calls)
	}
}

// A matrix's progress line: cells done of the shard's, skipped ones, the
// cells' verdicts, cells that could not run as errors.
func TestProgressMatrix(t *testing.T) {
	inner := &matrixHeard{}
	tl := newTally("lockcheck scoreboard", "cells", 0, false)
	var obs matrix.Observer = matrixProgress{inner, tl}
	obs.Started(matrix.Start{Cells: 5})
	for _, c := range []results.MatrixCell{
		{Verdict: model.Valid}, {Verdict: model.Invalid}, {Skip: "no sentinel here"}, {Error: "redis would not start"},
	} {
		obs.Finished(c)
	}
	obs.Rerunning(results.MatrixCell{}, 1)
	got := ticked(t, tl.line, 12*time.Minute)
	if want := "lockcheck scoreboard: 12m0s: 4 of 5 cells, 1 skipped; 1 valid, 1 invalid, 0 unknown, 1 error"; len(got) != 1 || got[0] != want {
		t.Errorf("progress lines %q, want %q", got, want)
	}
	if calls := strings.Join(inner.calls, " "); calls != "Started Finished Finished Finished Finished Rerunning" {
		t.Errorf("the wrapped observer heard %s", calls)
	}
}

// A rediscovery's progress line: bugs judged of those selected, the
// release hunted now, the hunts' runs, ops and verdicts.
func TestProgressRediscover(t *testing.T) {
	inner := &heard{}
	tl := newTally("lockcheck rediscover", "bugs", 3, true)
	var obs rediscover.Observer = rediscoverProgress{inner, tl}
	bug := rediscover.Bug{ID: "redisson-4.7-watchdog"}
	obs.Hunting(bug, rediscover.SideBuggy, rediscover.Release{Name: "redisson@3.43.0"})
	obs.Started(hunt.Start{Budget: time.Minute})
	obs.Recorded("redisson@3.43.0", outcome(1000, 0), nil)
	obs.Ran("run 1", trial(model.Unknown))
	obs.Recorded("redisson@3.43.0", outcome(2000, 3), nil)
	obs.Ran("run 2", trial(model.Invalid))
	obs.Hunting(bug, rediscover.SideFixed, rediscover.Release{Name: "redisson@3.44.0"})
	hunting := ticked(t, tl.line, time.Minute)
	obs.Judged(rediscover.Row{Bug: bug})
	obs.Hunting(rediscover.Bug{ID: "next"}, rediscover.SideBuggy, rediscover.Release{Name: "x@1", NotRun: "no subject x"})
	judged := ticked(t, tl.line, 2*time.Minute)
	want := []string{
		"lockcheck rediscover: 1m0s: 0 of 3 bugs, 2 runs, 3003 ops, hunting redisson-4.7-watchdog's fixed release redisson@3.44.0; 0 valid, 1 invalid, 1 unknown, 0 errors",
		"lockcheck rediscover: 2m0s: 1 of 3 bugs, 2 runs, 3003 ops; 0 valid, 1 invalid, 1 unknown, 0 errors",
	}
	if g := append(hunting, judged...); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress lines\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
	if calls := strings.Join(inner.calls, " "); calls != "Hunting Started Recorded Ran Recorded Ran Hunting Judged Hunting" {
		t.Errorf("the wrapped observer heard %s", calls)
	}
}

// progressLines prints on a real ticker until stopped, and its goroutine
// is gone once stop returns; on a terminal's stderr env.progress starts
// nothing.
func TestProgressLinesStop(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var out syncBuffer
	n := 0
	stop := progressLines(&out, time.Millisecond, func(time.Duration) string { n++; return fmt.Sprint("line ", n) })
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "line 2\n") && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	stop()
	if !strings.HasPrefix(out.String(), "line 1\nline 2\n") {
		t.Errorf("printed %q, want lines 1, 2...", out.String())
	}
	var quiet syncBuffer
	before := goleak.IgnoreCurrent()
	stop = (&env{stderr: &quiet, stderrTerminal: true}).progress(func(time.Duration) string { return "never" })
	goleak.VerifyNone(t, before) // no printer started
	stop()
	if quiet.String() != "" {
		t.Errorf("printed %q on a terminal", quiet.String())
	}
}
