package permits

import (
	"math/rand/v2"
	"time"
)

// Plan is one semaphore run. Every random choice of the run (delays, hold
// times, permit counts, set or add) comes from Seed.
type Plan struct {
	Seed int64
	// Workers take and release permits; each is a client of its own.
	Workers int
	// Rounds run one after the other, each on a fresh semaphore.
	Rounds int
	// Round is how long the workers of a round go on.
	Round time.Duration
	// Total is the permits the admin gives each round's semaphore.
	Total int
	// MaxN bounds the permits of one acquire (1..MaxN).
	MaxN int
	// Wait is a tryAcquire's wait.
	Wait time.Duration
	// Hold bounds how long a worker keeps its permits.
	Hold time.Duration
	// SetDelay bounds how long the admin waits before giving the permits,
	// while the workers already wait for them.
	SetDelay time.Duration
	// OpTimeout bounds one call; beyond it the op is info.
	OpTimeout time.Duration
	// Handovers, if positive, adds for a semaphore (counting or permit) a
	// round of handovers after the Rounds, on a semaphore of its own, that
	// go on this long: one permit passed from worker 1 to a waiting worker
	// 2, released at an offset from the waiter's call drawn from the seed
	// (handoverRound).
	Handovers time.Duration
}

// DefaultPlan is the plan of seed: 5 workers, 3 rounds of 1.5 s on 3
// permits, acquires of 1 or 2, permits given 0.5 to 1 s into a round (the
// waiters' subscriptions are confirmed by then: a confirmation that came
// after the permits would wake them, and hide a missing wake-up); for a
// semaphore, 5 s of handovers after them (a few hundred through
// the Java driver on a busy machine: a release lands in the few
// instructions where a waiter misses its message once in some hundreds).
func DefaultPlan(seed int64) Plan {
	return Plan{
		Seed: seed, Workers: 5, Rounds: 3, Round: 1500 * time.Millisecond,
		Total: 3, MaxN: 2, Wait: 2500 * time.Millisecond, Hold: 20 * time.Millisecond,
		SetDelay: time.Second, OpTimeout: 5 * time.Second, Handovers: 5 * time.Second,
	}
}

// rng returns the random source of one actor of the run (0: the admin).
func (p Plan) rng(actor int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(p.Seed), uint64(actor)+1))
}

// addRound reports whether round r's admin gives the permits with
// addPermits (else trySetPermits): two rounds in three, so that each run
// of three rounds does both, addPermits twice.
func (p Plan) addRound(r int) bool { return (int64(r)+p.Seed)%3 != 0 }

// Length is how long a run of p on s lasts: its rounds, then the
// handovers of a semaphore (not a latch's).
func (p Plan) Length(s Subject) time.Duration {
	d := time.Duration(p.Rounds) * p.RoundLength()
	if p.Handovers > 0 && s.part(0).OpenLatch == nil {
		d += p.Handovers
	}
	return d
}
