package rediscover

import (
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// TestRediscoverOnRedis is one short rediscovery for real, on the
// redis-servers its hunts start: a mutant stands in for the buggy release
// and the reentrant lock for the fixed one. The mutant is found in a plain
// run (no fault; the fault-allowance checker fires), its reproduction names it, and the reentrant lock stays clean
// over the same seed and budget.
func TestRediscoverOnRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-servers (skipped with -short)")
	}
	b := testBug("check-then-set")
	b.Property = model.ClassSafety
	rep, err := Run(t.Context(), Config{
		Bugs: []Bug{b}, Budget: 8 * time.Second, RunDuration: 2 * time.Second, Seed: 11, Out: t.TempDir(),
		StandIns: map[string]string{"lib@1.0.0": "mutant-check-then-set", "lib@1.0.1": "reentrant"},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Rows[0]
	if r.Outcome != Found || !r.Buggy.Find.Class.Counts() || !strings.Contains(r.Buggy.Find.Command, "--subject mutant-check-then-set") {
		t.Fatalf("buggy: %s (%s), find %+v: want found in the mutant, beyond any fault", r.Outcome, r.Why, r.Buggy.Find)
	}
	if r.Buggy.Find.Detection <= 0 || r.Buggy.Find.Detection > 8*time.Second+time.Minute {
		t.Errorf("detection %v: want within the budget and its run's check", r.Buggy.Find.Detection)
	}
	if r.FixedOutcome != Clean || r.Fixed.Runs == 0 || r.Fixed.Seeds[0] != r.Buggy.Seeds[0] {
		t.Errorf("fixed: %s after %d runs (seeds %v, buggy %v): want clean from the same seed", r.FixedOutcome, r.Fixed.Runs, r.Fixed.Seeds, r.Buggy.Seeds)
	}
}
