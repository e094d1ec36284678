package locktest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// runOverhead is what a run costs besides its length: the world's start
// and teardown, the processes' last releases, the check.
const runOverhead = 500 * time.Millisecond

// failure is a run that did not get the verdict its scenario requires.
type failure struct {
	plan workloads.Plan
	seed int64
	run  time.Duration
	res  *workloads.Result
	why  string // what the verdict lacks ("verdict invalid, want valid")
}

// check is the rapid property of one scenario: runs of plans drawn from
// the scenario's, until share is spent. On the first failure rapid shrinks
// it within what is left of the whole budget; the last failing run (the
// smallest) is reported when the subtest ends.
func (s *suite) check(t *testing.T, p planned, share time.Duration) {
	checks := max(1, int(share/(p.run+runOverhead)))
	rapidFlags(t, checks)
	searchEnd := time.Now().Add(share)
	var last *failure
	t.Cleanup(func() {
		if last != nil {
			s.report(t, p, last)
		}
	})
	rapid.Check(t, func(rt *rapid.T) {
		if last == nil && (s.broken != nil || time.Now().After(searchEnd)) {
			return // the search's share is spent: nothing more to try
		}
		plan := drawPlan(rt, p.sc.Plan)
		seed := rapid.Int64Range(1, 1<<20).Draw(rt, "seed")
		f, err := s.runOnce(p, plan, seed)
		switch {
		case err != nil:
			s.broken = err
			return
		case f == nil:
			return
		case last == nil:
			s.failed = true
			// Leave room for rapid's two reruns of the smallest case.
			shrinkFor(t, time.Until(s.deadline)-2*(p.run+runOverhead))
		}
		last = f
		rt.Fatalf("locktest: %s on %s: %s", s.lock.Name, p.sc.Name, f.why)
	})
	if s.broken != nil {
		t.Fatalf("locktest: %s: the run could not be made (not the lock's failure): %v", p.sc.Name, s.broken)
	}
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
	p.StrayUnlockPercent = rapid.IntRange(0, 10).Draw(rt, "stray_unlock_percent")
	return p
}

// runOnce runs p's scenario once with plan and seed. It returns the
// failure, nil when the run got the verdict the scenario requires, or an
// error when the run could not be made or did not get its faults (and
// found no violation either).
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
	ok, why := sc.Expectation(s.subject).Match(res.Report)
	if ok {
		return nil, nil
	}
	return &failure{plan: plan, seed: seed, run: p.run, res: res, why: why}, nil
}
