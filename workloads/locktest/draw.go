package locktest

import (
	"flag"
	"hash/fnv"
	"math/rand/v2"

	"pgregory.net/rapid"

	"github.com/lockcheck/lockcheck/workloads"
)

const seedFlagName = "locktest.seed"

// seedFlag replays a failure: its draw becomes the first draw of every
// scenario Run checks (a failure's report prints the line).
var seedFlag = flag.Int64(seedFlagName, 0, "locktest: the seed of Run's first draw in each scenario (a failure's report prints the one that replays it; 0: from Seed, else the clock)")

// drawn is one draw of a scenario's check: a plan and the run's seed.
type drawn struct {
	plan workloads.Plan
	seed int64
}

// draw is rapid's example of a draw from base for seed: how many
// processes, how many acquires are TryLocks, how many cycles are an Unlock
// by a process that does not hold the lock (which must answer not-owner),
// and the run's seed. It reads and writes none of rapid's process-wide
// flags (Generator.Example with a seed), so Run may be called from
// parallel tests; the same seed draws the same plan.
func draw(base workloads.Plan, seed int64) drawn {
	return rapid.Custom(func(rt *rapid.T) drawn {
		p := base
		p.Locks = append([]string(nil), base.Locks...)
		p.Processes = rapid.IntRange(2, max(base.Processes, 2)+2).Draw(rt, "processes")
		p.TryLockPercent = rapid.IntRange(0, 50).Draw(rt, "try_lock_percent")
		// None, or enough that a rerun meets them again.
		p.StrayUnlockPercent = rapid.SampledFrom([]int{0, 5, 10, 15}).Draw(rt, "stray_unlock_percent")
		return drawn{plan: p, seed: rapid.Int64Range(1, 9999).Draw(rt, "seed")}
	}).Example(int(seed))
}

// firstSeed is the seed Run's draws start from: -locktest.seed, else the
// Seed option, else one from the clock.
func firstSeed(opt int64) int64 {
	switch {
	case *seedFlag != 0:
		return *seedFlag
	case opt != 0:
		return opt
	}
	return rand.Int64N(1<<31) + 1
}

// scenarioSeed is the seed of scenario's first draw when Run's draws start
// from first: first itself under -locktest.seed (a replay draws the
// failure's plan first in every scenario), else one of its own for each
// scenario, from first and the scenario's name. Scenarios then check
// different plans: under -short each runs about one draw, and one plan
// drawn for all would leave every scenario without, say, stray unlocks.
func scenarioSeed(first int64, scenario string) int64 {
	if *seedFlag != 0 {
		return first
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(scenario))
	return int64((uint64(first)^h.Sum64())%(1<<31)) + 1
}
