package impl

import (
	"hash/fnv"
	"math/rand/v2"
	"sync"
	"time"
)

// An unlock message on a reentrant lock's channel wakes every waiter of every
// Client (Redisson wakes one waiter per client; with one client per process
// that is all of them), and each runs its acquire script: with n waiters, one
// grant costs about n scripts, and the server's time goes to failed
// attempts. A waiter whose attempts after wake-ups keep failing (more than
// herdFree times in one call: a crowd, not a hand-off between a few)
// therefore waits a random delay before its next attempt after a wake-up,
// uniform in [0, min((lost-herdFree) × herdStep, herdMax)). The retries
// after an unlock spread out: the first takes the lock, and a waiter still
// asleep when further unlock messages come answers them all with one
// attempt. A few waiters, or a waiter's first wake-ups, are never delayed,
// so hand-offs between a few processes are as fast as before.
//
// Those delays grow with the attempts a waiter lost, so by themselves they
// would hold back most the waiter that waited longest; from herdOld into its
// call a waiter is therefore never delayed (it answers every wake-up at once).
const (
	herdFree = 8
	herdStep = 250 * time.Microsecond
	herdMax  = 2 * time.Millisecond
	herdOld  = 30 * time.Millisecond
)

// jitter is a Client's seeded source of wake-up delays, safe for concurrent
// use.
type jitter struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newJitter(seed uint64) *jitter {
	return &jitter{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// seedOf derives the default jitter seed from a client id.
func seedOf(clientID string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(clientID)) // hash.Hash.Write never fails
	return h.Sum64()
}

// delay returns the wait before the next attempt of a waiter, waiting for
// age so far, whose last lost attempts after wake-ups failed (0 while lost
// <= herdFree, and from age herdOld on).
func (j *jitter) delay(lost int, age time.Duration) time.Duration {
	span := min(time.Duration(lost-herdFree)*herdStep, herdMax)
	if span <= 0 || age >= herdOld {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return time.Duration(j.rng.Int64N(int64(span)))
}

// period returns a poll period drawn uniformly from [mean/2, 3×mean/2), so
// pollers of one lock do not fall into step.
func (j *jitter) period(mean time.Duration) time.Duration {
	if mean <= 1 {
		return mean
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return mean/2 + time.Duration(j.rng.Int64N(int64(mean)))
}
