package locktest

import (
	"flag"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads"
)

// TestDrawIsTheSeedsAndLeavesRapidAlone: a seed draws the same plan every
// time, seeds draw different plans, within the bounds, and drawing
// changes none of rapid's flags.
func TestDrawIsTheSeedsAndLeavesRapidAlone(t *testing.T) {
	before := rapidFlags()
	base := workloads.Plan{Workload: "contended", Processes: 4, Locks: []string{"a"}}
	seen := map[string]bool{}
	for seed := int64(1); seed <= 50; seed++ {
		d := draw(base, seed)
		if again := draw(base, seed); !reflect.DeepEqual(d, again) {
			t.Fatalf("seed %d drew %+v, then %+v", seed, d, again)
		}
		p := d.plan
		if p.Processes < 2 || p.Processes > 6 || p.TryLockPercent < 0 || p.TryLockPercent > 50 || d.seed < 1 || d.seed > 9999 {
			t.Errorf("seed %d: draw out of bounds: %+v", seed, d)
		}
		if p.Workload != base.Workload || !reflect.DeepEqual(p.Locks, base.Locks) {
			t.Errorf("seed %d: the draw changed the scenario's workload or locks: %+v", seed, p)
		}
		seen[fmt.Sprint(p.Processes, p.TryLockPercent, p.StrayUnlockPercent)] = true
	}
	if len(seen) < 4 {
		t.Errorf("50 seeds drew %d distinct plans", len(seen))
	}
	if after := rapidFlags(); !reflect.DeepEqual(before, after) {
		t.Errorf("rapid's flags changed: %v -> %v", before, after)
	}
}

// rapidFlags are the values of rapid's flags.
func rapidFlags() map[string]string {
	out := map[string]string{}
	flag.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "rapid.") {
			out[f.Name] = f.Value.String()
		}
	})
	return out
}

// TestShrinkSteps: each step simplifies toward the smallest plan and says
// when it has nothing left to do.
func TestShrinkSteps(t *testing.T) {
	p := workloads.Plan{Processes: 7, TryLockPercent: 30, StrayUnlockPercent: 10}
	for _, step := range shrinkSteps {
		for {
			q, ok := step.apply(p)
			if !ok {
				break
			}
			if reflect.DeepEqual(q, p) {
				t.Fatalf("%s changed nothing but said it did", step.name)
			}
			p = q
		}
	}
	if want := (workloads.Plan{Processes: 2}); !reflect.DeepEqual(p, want) {
		t.Errorf("shrunk to %+v, want %+v", p, want)
	}
}

// TestScenariosDrawPlansOfTheirOwn: from one first seed, the -short
// scenarios (about one draw each) start from seeds of their own, so a plan
// with no stray unlocks, drawn for one, is not drawn for all; a replay
// (-locktest.seed) starts every scenario from its seed.
func TestScenariosDrawPlansOfTheirOwn(t *testing.T) {
	short := []string{"no-faults", "partition-short", "client-stall", "process-pause"}
	base := workloads.Plan{Workload: "contended", Processes: 4, Locks: []string{"a"}}
	const firsts = 400
	none := 0 // first seeds whose scenarios all drew no stray unlocks
	for first := int64(1); first <= firsts; first++ {
		seeds := map[int64]bool{}
		stray := 0
		for _, sc := range short {
			seed := scenarioSeed(first, sc)
			if seed != scenarioSeed(first, sc) || seed < 1 {
				t.Fatalf("scenarioSeed(%d, %s) = %d, not the same each time or not positive", first, sc, seed)
			}
			seeds[seed] = true
			stray += draw(base, seed).plan.StrayUnlockPercent
		}
		if len(seeds) != len(short) {
			t.Errorf("first seed %d: %d scenarios start from %d seeds", first, len(short), len(seeds))
		}
		if stray == 0 {
			none++
		}
	}
	// A quarter of draws have none: all four, about 1 in 256.
	if none > firsts/50 {
		t.Errorf("%d of %d first seeds drew no stray unlocks in any -short scenario", none, firsts)
	}
	t.Logf("%d of %d first seeds drew no stray unlocks in any -short scenario", none, firsts)

	defer func(v int64) { *seedFlag = v }(*seedFlag)
	*seedFlag = 77
	for _, sc := range short {
		if got := scenarioSeed(77, sc); got != 77 {
			t.Errorf("under -locktest.seed=77, %s starts from %d", sc, got)
		}
	}
}
