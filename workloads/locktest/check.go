package locktest

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// reportCost is what is kept for the report of a failure (its run
// directory: history.html, plots) at the end of the budget.
const reportCost = time.Second

// failure is a run that did not show what its scenario requires.
type failure struct {
	plan workloads.Plan
	seed int64
	run  time.Duration
	res  *workloads.Result
	why  string // what the verdict lacks ("verdict invalid, want valid", "fault-allowance invalid, want valid")
}

// checkState is one scenario's property check: the runs made so far.
type checkState struct {
	p         planned
	searchEnd time.Time           // no new draw is run after it, unless one failed
	done      map[string]*failure // by draw: a draw is run once (nil: it passed)
	took      time.Duration       // the runs' time in all
	runs      int
	last      *failure // the smallest failure so far
	replay    string   // rapid's -rapid.seed=N of the failure
}

// seedTB is the test as rapid sees it: it keeps the -rapid.seed=N of
// rapid's failure message for the report.
type seedTB struct {
	*testing.T
	st *checkState
}

var rapidSeed = regexp.MustCompile(`-rapid\.seed=\d+`)

func (tb *seedTB) Errorf(format string, args ...any) {
	tb.T.Helper()
	msg := fmt.Sprintf(format, args...)
	if m := rapidSeed.FindString(msg); m != "" {
		tb.st.replay = m
	}
	tb.T.Error(msg)
}

// check is the rapid property of one scenario: runs of plans drawn from
// the scenario's until share is spent (one run at least). On the first failure rapid shrinks
// it within what is left of the whole budget; the last failing run (the
// smallest) is reported when the subtest ends. A draw is run once: rapid's
// replays of the smallest case reuse its run (its -rapid.seed line reruns
// it for real).
func (s *suite) check(t *testing.T, p planned, share time.Duration) {
	rapidFlags(t, max(1, int(share/p.run)))
	st := &checkState{p: p, searchEnd: time.Now().Add(share), done: map[string]*failure{}}
	t.Cleanup(func() {
		if st.last != nil {
			s.report(t, p, st.last, st.replay)
		}
	})
	rapid.Check(&seedTB{T: t, st: st}, func(rt *rapid.T) { s.property(t, rt, st) })
	if st.last == nil && s.broken == nil {
		t.Logf("locktest: %s: %d runs of %v in %v, each %s", p.sc.Name, st.runs, p.run, st.took.Round(100*time.Millisecond), p.req.label())
	}
	if s.broken != nil {
		t.Fatalf("locktest: %s: the run could not be made (not the lock's failure): %v", p.sc.Name, s.broken)
	}
}

// property runs one draw (or reuses its run) and fails rt when the run
// did not get the verdict the scenario requires.
func (s *suite) property(t *testing.T, rt *rapid.T, st *checkState) {
	if st.last == nil && (s.broken != nil || st.runs > 0 && time.Now().Add(st.mean()).After(st.searchEnd)) {
		return // the search's share is spent (each scenario runs once at least)
	}
	plan := drawPlan(rt, st.p.sc.Plan)
	seed := rapid.Int64Range(1, 9999).Draw(rt, "seed")
	key := fmt.Sprintf("%+v/%d", plan, seed)
	f, seen := st.done[key]
	if !seen && st.last != nil && time.Now().Add(st.mean()).After(s.deadline.Add(-reportCost)) {
		return // out of time to shrink: rapid's loops end without a run
	}
	if !seen {
		start := time.Now()
		var err error
		if f, err = s.runOnce(st.p, plan, seed); err != nil {
			s.broken = err
			return
		}
		st.took, st.runs = st.took+time.Since(start), st.runs+1
		st.done[key] = f
	}
	if f == nil {
		return
	}
	if st.last == nil {
		s.failed = true
		t.Logf("locktest: %s failed on a run of %d processes (seed %d): %s; shrinking", st.p.sc.Name, plan.Processes, seed, f.why)
		shrinkFor(t, time.Until(s.deadline)-reportCost)
	}
	st.last = f
	rt.Fatalf("locktest: %s on %s: %s", s.lock.Name, st.p.sc.Name, f.why)
}

// mean is the mean time of a run so far (the run's length before any).
func (st *checkState) mean() time.Duration {
	if st.runs == 0 {
		return st.p.run
	}
	return st.took / time.Duration(st.runs)
}

// drawPlan draws a run's plan from the scenario's: how many processes, how
// many acquires are TryLocks, and how many cycles are an Unlock by a
// process that does not hold the lock (which must answer not-owner).
// Shrinking takes each toward its smallest value.
func drawPlan(rt *rapid.T, base workloads.Plan) workloads.Plan {
	p := base
	p.Locks = append([]string(nil), base.Locks...)
	p.Processes = rapid.IntRange(2, max(base.Processes, 2)+2).Draw(rt, "processes")
	p.TryLockPercent = rapid.IntRange(0, 50).Draw(rt, "try_lock_percent")
	// None, or enough that a rerun meets them again.
	p.StrayUnlockPercent = rapid.SampledFrom([]int{0, 5, 10, 15}).Draw(rt, "stray_unlock_percent")
	return p
}

// runOnce runs p's scenario once with plan and seed. It returns the
// failure, nil when the run showed what p requires, or an error when the
// run could not be made or did not get its faults (and found no violation
// either).
func (s *suite) runOnce(p planned, plan workloads.Plan, seed int64) (*failure, error) {
	sc := p.sc
	sc.Plan = plan
	ctx, cancel := context.WithTimeout(context.Background(), p.run+3*time.Minute)
	defer cancel()
	res, err := sc.Run(ctx, scenario.Options{Subject: s.lock.Name, Seed: seed, Duration: p.run, Registry: s.reg})
	switch {
	case res == nil:
		return nil, err
	case err != nil && res.Report.Verdict != model.Invalid:
		return nil, err
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("run of %v still going after %v", p.run, p.run+3*time.Minute)
	}
	ok, why := p.req.match(res.Report)
	if ok {
		return nil, nil
	}
	return &failure{plan: plan, seed: seed, run: p.run, res: res, why: why}, nil
}
