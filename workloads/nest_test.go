package workloads

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// A holder nests only locks after its own in name order, and none from the
// last.
func TestInnerOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	locks := []string{"c", "a", "d", "b"}
	for range 50 {
		if got := innerOf(locks, "b", rng); got != "c" && got != "d" {
			t.Fatalf("innerOf(b) = %q, want c or d", got)
		}
	}
	if got := innerOf(locks, "d", rng); got != "" {
		t.Errorf("innerOf(d), the last: %q, want none", got)
	}
}

// TestNestedHolds: with NestPercent, holders take a second lock inside
// their hold, always one after their own in name order; the reference lock
// stays valid on every checker, each lock judged on its own.
func TestNestedHolds(t *testing.T) {
	t.Parallel() // a redis-server of its own; the run mostly waits
	s := startRedis(t)
	plan := &Plan{
		Workload: "nest", Processes: 4, Locks: []string{"nest-c", "nest-a", "nest-b"},
		TryLockPercent: 30, Wait: Range{Min: ms(50), Max: ms(300)},
		Hold: Range{Min: ms(5), Max: ms(20)}, Think: Range{Max: ms(5)},
		Counter: true, OpTimeout: 5 * time.Second, NestPercent: 60,
	}
	res := run(t, s, RunConfig{Subject: "reentrant", Plan: plan, Seed: 3, Duration: 2 * time.Second}, Deps{Serve: catalog.SelfServer()})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Errorf("reentrant with nested holds: %s, want valid\n%s", res.Report.Verdict, res.Report)
	}
	held := map[int]string{} // process -> its outer hold
	nested := 0
	for _, o := range res.History.Ops {
		switch {
		case o.Kind == model.Acquire && o.Outcome == model.OK && held[o.Process] == "":
			held[o.Process] = o.Lock
		case o.Kind == model.Acquire && o.Outcome == model.OK && held[o.Process] != o.Lock:
			nested++
			if o.Lock < held[o.Process] {
				t.Errorf("p%d took %s inside its hold of %s: against the name order", o.Process, o.Lock, held[o.Process])
			}
		case o.Kind == model.Release && o.Lock == held[o.Process]:
			delete(held, o.Process)
		}
	}
	if nested == 0 {
		t.Errorf("no nested hold in %d ops", len(res.History.Ops))
	}
}
