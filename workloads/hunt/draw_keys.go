package hunt

import (
	"math/rand/v2"
	"slices"

	"github.com/lockcheck/lockcheck/workloads"
)

// Keys a plain draw may spread over (DrawKeys): from MinKeys to MaxKeys
// lock names, each KeyPrefix and KeyLetters letters or digits. Up to 32,
// past the square root of the pools of 256 that libraries take local
// locks from, so that two names of a draw share a slot in about one
// spread draw in three (the birthday bound), not once in hundreds.
const (
	MinKeys    = 2
	MaxKeys    = 32
	KeyPrefix  = "hunt-"
	KeyLetters = 4
)

// keyAlphabet is what a drawn name's letters are drawn from.
const keyAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// DrawKeys draws, from seed, whether a plain draw of the hunt workload
// spreads its cycles over several lock names instead of one: one draw in
// three takes MinKeys to MaxKeys distinct names drawn from seed, so that a
// hunt meets the bugs of different keys that meet inside a client or a
// server: a local lock taken from a pool by the name's hash (Spring
// Integration 7.0.5's 256 stripes), a renewal entry, a pub/sub channel or
// a hash slot that names share. The names are of one length, so whether
// two of them fall together under a hash of the whole key (the run's
// random key prefix and the name) depends on the names alone and a
// replay of the plan meets the same ones. The other draws keep the plan's
// one lock, where contention is highest; a plan of another workload is
// returned as it is.
func DrawKeys(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x4E75))
	if plan.Workload != "hunt" || rng.IntN(3) != 0 {
		return plan
	}
	n := MinKeys + rng.IntN(MaxKeys-MinKeys+1)
	var names []string
	for len(names) < n {
		b := []byte(KeyPrefix)
		for range KeyLetters {
			b = append(b, keyAlphabet[rng.IntN(len(keyAlphabet))])
		}
		if name := string(b); !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	plan.Locks = names
	return plan
}

// Nesting a plain draw may ask for (DrawNest): the share of cycles that
// hold a second lock inside the first, from MinNest to MaxNest percent.
const (
	MinNest = 10
	MaxNest = 40
)

// DrawNest draws, from seed, whether a plain draw spread over several lock
// names (DrawKeys) nests holds (Plan.NestPercent): one such draw in two,
// MinNest to MaxNest percent of its cycles, so that a hunt meets the bugs
// of a client holding two locks at once: per-thread state (a renewal
// entry, a reentry count) kept across names, a local lock shared by two
// names that fall in one stripe. A plan of one lock, or of another
// workload, is returned as it is.
func DrawNest(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x4E57))
	if plan.Workload != "hunt" || len(plan.Locks) < 2 || rng.IntN(2) != 0 {
		return plan
	}
	plan.NestPercent = MinNest + rng.IntN(MaxNest-MinNest+1)
	return plan
}
