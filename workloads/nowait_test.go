package workloads

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestNoWaitPercent: a plan's NoWaitPercent of its TryLocks make one attempt
// (a wait of 0), the others draw their wait from Wait; at 0 none does.
func TestNoWaitPercent(t *testing.T) {
	reg, err := subject.NewRegistry(fakeSubject("mem", false))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		percent  int
		min, max float64 // share of TryLocks without a wait
	}{{0, 0, 0}, {50, 0.3, 0.7}, {100, 1, 1}} {
		plan := Plan{Workload: "nowait", Processes: 3, Locks: []string{"l"}, TryLockPercent: 100, NoWaitPercent: tc.percent,
			Wait: Range{Min: time.Millisecond, Max: 5 * time.Millisecond}, Hold: Range{Max: time.Millisecond}, Counter: true, OpTimeout: time.Second}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		res, err := Run(ctx, RunConfig{Subject: "mem", Plan: &plan, Seed: 3, Duration: 500 * time.Millisecond}, Deps{Registry: reg, Dial: noRedis})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		tries, none := 0, 0
		for _, o := range res.History.Ops {
			if o.Kind == model.Acquire && !o.Blocking {
				tries++
				if o.Wait == 0 {
					none++
				}
			}
		}
		if share := float64(none) / float64(max(tries, 1)); tries < 20 || share < tc.min || share > tc.max {
			t.Errorf("no_wait_percent %d: %d of %d TryLocks without a wait, want a share in [%g, %g]", tc.percent, none, tries, tc.min, tc.max)
		}
		if res.Report.Verdict != model.Valid {
			t.Errorf("no_wait_percent %d: %s\n%s", tc.percent, summary(res), res.Report)
		}
	}
	bad := Plan{Workload: "nowait", Processes: 1, Locks: []string{"l"}, NoWaitPercent: 101, OpTimeout: time.Second}
	if err := bad.Validate(); err == nil {
		t.Error("no_wait_percent 101 validated")
	}
}

// TestCallFormsNeedAVaryingSubject: a plan that varies call forms is
// refused, naming the subject, on one whose calls have one form.
func TestCallFormsNeedAVaryingSubject(t *testing.T) {
	reg, err := subject.NewRegistry(fakeSubject("mem", false))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), RunConfig{Subject: "mem", Workload: "counter", Seed: 1, Duration: time.Second, CallForms: true}, Deps{Registry: reg, Dial: noRedis})
	if !errors.Is(err, ErrNoCallForms) {
		t.Fatalf("a run varying call forms on a one-form subject: %v, want ErrNoCallForms", err)
	}
}
