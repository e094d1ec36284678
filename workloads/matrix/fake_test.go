package matrix

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// fakeClock moves one second each time it is read.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock(start time.Time) *fakeClock { return &fakeClock{now: start} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

// fakeExec runs no Redis: each run writes a small real run directory under
// its key (history, result, summary, timeline) with the verdict bad gives.
type fakeExec struct {
	dir string
	// bad lists the checkers that say invalid in cell c's run (try 1: the
	// first run of the cell, 2: its first rerun, ...).
	bad func(c scenario.Cell, try int) []string
	// errAt makes those runs (1: the first) fail with errRun and write
	// nothing; wroteAt makes them fail after writing their directory (a
	// driver that did not start once the run had begun).
	errAt, wroteAt []int
	// after, if set, is called after each run with its number.
	after func(n int)

	keys  []Key
	tries map[Key]int // runs by cell
}

var errRun = errors.New("fake: the run could not be made")

// checkers are the checkers every fake run reports.
var checkers = []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckLiveness}

func (f *fakeExec) Exec(ctx context.Context, c scenario.Cell, key Key) (Ran, error) {
	f.keys = append(f.keys, key)
	n := len(f.keys)
	if f.after != nil {
		defer f.after(n)
	}
	if slices.Contains(f.errAt, n) {
		return Ran{}, errRun
	}
	if _, err := os.Stat(key.In(f.dir)); err == nil {
		return Ran{}, results.ErrRunExists // as results.Record says
	}
	if f.tries == nil {
		f.tries = map[Key]int{}
	}
	f.tries[CellKey(c, 0)]++
	try := f.tries[CellKey(c, 0)]
	rep := model.Report{Verdict: model.Valid}
	var bad []string
	if f.bad != nil {
		bad = f.bad(c, try)
	}
	for _, name := range checkers {
		r := model.Result{Checker: name, Verdict: model.Valid, Explanation: "fake"}
		for _, b := range bad {
			if b == name {
				r.Verdict, r.Count, r.Explanation = model.Invalid, 1, "fake violation"
				rep.Verdict = model.Invalid
			}
		}
		rep.Results = append(rep.Results, r)
	}
	_, err := results.WriteRun(key.In(f.dir), results.RunArtifacts{
		Subject: c.Subject.Name, Workload: c.Scenario.Name, Seed: c.Seed, Config: map[string]any{"seed": c.Seed},
		History: tinyHistory(), Report: rep, NoPlots: true,
	})
	if err == nil && slices.Contains(f.wroteAt, n) {
		err = errRun
	}
	return Ran{Report: rep, Recorded: true}, err
}

// tinyHistory is one grant, its critical section and its release.
func tinyHistory() *model.History {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	return &model.History{Header: model.Header{Version: model.FormatVersion}, Ops: []model.Op{
		{Process: 0, Lock: "L", Kind: model.Acquire, Call: ms(1), Return: ms(2), Lease: ms(1000), Blocking: true, Outcome: model.OK},
		{Process: 0, Lock: "L", Kind: model.Section, Call: ms(3), Return: ms(4), Read: 0, Write: 1, Seq: 1, Outcome: model.OK},
		{Process: 0, Lock: "L", Kind: model.Release, Call: ms(5), Return: ms(6), Outcome: model.OK},
	}}
}

// fakeScenarios are two safe scenarios and an unsafe one; the fake
// executor runs none of them.
func fakeScenarios() []scenario.Scenario {
	return []scenario.Scenario{
		{Name: "safe-a", Safe: true, Doc: "nothing breaks"},
		{Name: "safe-b", Safe: true, Doc: "nothing breaks either"},
		{Name: "unsafe-c", Doc: "a fault any lease lock breaks under"},
	}
}

// fakeSubjects are three libraries (peers: scored).
func fakeSubjects() []subject.Subject {
	var out []subject.Subject
	for _, n := range []string{"lock-x", "lock-y", "lock-z"} {
		out = append(out, subject.Subject{Name: n, Kind: subject.KindPeer, Doc: "a fake " + n})
	}
	return out
}

// detects makes every run of the unsafe scenario detected (its owners
// invalid) and the runs of lock-y on safe-b break mutual exclusion.
func detects(c scenario.Cell, _ int) []string {
	if !c.Scenario.Safe {
		var owners []string
		for name, v := range c.Scenario.Expectation(c.Subject).Checkers {
			if v == model.Invalid {
				owners = append(owners, name)
			}
		}
		return owners
	}
	if c.Scenario.Name == "safe-b" && c.Subject.Name == "lock-y" {
		return []string{model.CheckMutualExclusion}
	}
	return nil
}

// recorder is an Observer that keeps what it heard as lines.
type recorder struct {
	started []Start
	events  []string
}

func (r *recorder) Started(s Start) { r.started = append(r.started, s) }
func (r *recorder) Finished(c results.MatrixCell) {
	r.events = append(r.events, fmt.Sprintf("finished %s ok=%v", c.Key(), c.OK))
}
func (r *recorder) Rerunning(c results.MatrixCell, k int) {
	r.events = append(r.events, fmt.Sprintf("rerun %d of %s", k, c.Key()))
}
func (r *recorder) NotSaved(err error) { r.events = append(r.events, "not saved: "+err.Error()) }

// fakeConfig is a scoreboard of the fake 3 × 3 matrix, seed 1, through x.
func fakeConfig(dir string, x *fakeExec, obs Observer, clock *fakeClock) Config {
	x.dir = dir
	return Config{
		Kind: Scoreboard, Scenarios: fakeScenarios(), Subjects: fakeSubjects(), Seeds: []int64{1}, Reruns: 2,
		Dir: dir, Executor: x, Observer: obs, Now: clock.Now,
	}
}
