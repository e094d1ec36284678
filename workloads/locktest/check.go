package locktest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
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

// checkState is one scenario's check: the runs made so far.
type checkState struct {
	p         planned
	searchEnd time.Time     // no new draw is run after it
	took      time.Duration // the runs' time in all
	runs      int
}

// errOutOfTime ends shrinking: the next run would end past the budget.
var errOutOfTime = errors.New("out of time to shrink")

// check is the property of one scenario: the draws of seeds f, f+1, ...
// (draw; f is scenarioSeed) run until share is spent (one at least). The
// first that fails is shrunk within what is left of the whole budget, and
// the smallest failure is reported, with the -locktest.seed that draws it
// first again. It changes no process-wide state: parallel tests may call
// Run.
func (s *suite) check(t *testing.T, p planned, share time.Duration) {
	st := &checkState{p: p, searchEnd: time.Now().Add(share)}
	first := scenarioSeed(s.first, p.sc.Name)
	for i := int64(0); ; i++ {
		if st.runs > 0 && time.Now().Add(st.mean()).After(st.searchEnd) {
			break
		}
		seed := first + i
		d := draw(p.sc.Plan, seed)
		f, err := st.run(s, d.plan, d.seed)
		if err != nil {
			s.broken = err
			break
		}
		if f == nil {
			continue
		}
		s.failed = true
		t.Logf("locktest: %s failed on draw %d (-%s=%d), a run of %d processes (seed %d): %s; shrinking",
			p.sc.Name, i+1, seedFlagName, seed, d.plan.Processes, d.seed, f.why)
		small, steps, err := s.shrink(st, f, s.deadline.Add(-reportCost))
		switch {
		case errors.Is(err, errOutOfTime):
			steps = append(steps, "then "+err.Error()) // the report says it was cut short
		case err != nil:
			t.Logf("locktest: %s: shrinking stopped: %v", p.sc.Name, err)
		}
		s.report(t, p, small, steps, seed)
		t.Errorf("locktest: %s on %s: %s", s.lock.Name, p.sc.Name, small.why)
		return
	}
	if s.broken != nil {
		t.Fatalf("locktest: %s: the run could not be made (not the lock's failure): %v", p.sc.Name, s.broken)
	}
	t.Logf("locktest: %s: %d runs of %v in %v, each %s (draws from -%s=%d)", p.sc.Name, st.runs, p.run,
		st.took.Round(100*time.Millisecond), p.req.Label(), seedFlagName, first)
}

// run runs plan once with seed and counts the run's time.
func (st *checkState) run(s *suite, plan workloads.Plan, seed int64) (*failure, error) {
	start := time.Now()
	f, err := s.runOnce(st.p, plan, seed)
	st.took, st.runs = st.took+time.Since(start), st.runs+1
	return f, err
}

// tryCandidate runs plan until hunt.ShrinkVerdict decides, at most
// hunt.ShrinkTries times: its first failure when most runs failed, nil
// when too many passed; errOutOfTime when the next run would end past
// deadline.
func (st *checkState) tryCandidate(s *suite, plan workloads.Plan, seed int64, deadline time.Time) (*failure, error) {
	var first *failure
	failed, passed := 0, 0
	for {
		if time.Now().Add(st.mean()).After(deadline) {
			return nil, errOutOfTime
		}
		f, err := st.run(s, plan, seed)
		if err != nil {
			return nil, err
		}
		if f == nil {
			passed++
		} else if failed++; first == nil {
			first = f
		}
		if keep, done := hunt.ShrinkVerdict(failed, passed); done {
			if keep {
				return first, nil
			}
			return nil, nil
		}
	}
}

// mean is the mean time of a run so far (the run's length before any).
func (st *checkState) mean() time.Duration {
	if st.runs == 0 {
		return st.p.run
	}
	return st.took / time.Duration(st.runs)
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
	res, err := sc.Run(ctx, scenario.Options{
		Subject: s.lock.Name, Seed: seed, Duration: p.run, Registry: s.reg,
		Serve: catalog.ServedBy(serveCommand(s.test)), Served: true,
	})
	switch {
	case res == nil:
		return nil, err
	case err != nil && res.Report.Verdict != model.Invalid:
		return nil, err
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("run of %v still going after %v", p.run, p.run+3*time.Minute)
	}
	ok, why := p.req.Match(res.Report)
	if ok {
		return nil, nil
	}
	return &failure{plan: plan, seed: seed, run: p.run, res: res, why: why}, nil
}
