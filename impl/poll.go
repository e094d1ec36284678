package impl

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"
)

// pollAttempt is what one attempt of a polling acquire found.
type pollAttempt struct {
	granted bool
	// refusal says why the attempt was not granted when it is more than
	// "another owner holds the lock" (nil); the loop returns the last one.
	refusal error
	// fatal ends the loop at once: pollLock returns it as it is.
	fatal error
	// cap, when > 0, bounds the pause before the next attempt (the
	// holder's remaining TTL).
	cap time.Duration
}

// pollLock is the acquire loop of the polling locks (SimpleLock, Redlock).
// It calls attempt until one is granted, and returns (true, nil) then. It
// returns false and the last attempt's refusal after one attempt when
// block is false, and when the deadline (if not zero) has passed; false
// and an error naming what, wrapping ErrNotObtained, ctx.Err() and the
// last refusal, once ctx ends; and an attempt's fatal error at once.
// Between attempts it sleeps pause(), at most the attempt's cap and the
// time left to the deadline. It starts no goroutine.
func pollLock(ctx context.Context, what string, block bool, deadline time.Time, pause func() time.Duration, attempt func() pollAttempt) (bool, error) {
	var timer *time.Timer
	for {
		a := attempt()
		switch {
		case a.fatal != nil:
			return false, a.fatal
		case a.granted:
			return true, nil
		case ctx.Err() != nil:
			return false, fmt.Errorf("%s: %w", what, errors.Join(ErrNotObtained, ctx.Err(), a.refusal))
		case !block:
			return false, a.refusal
		}
		d := pause()
		if a.cap > 0 {
			d = min(d, a.cap)
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, a.refusal
			}
			d = min(d, left)
		}
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("%s: %w", what, errors.Join(ErrNotObtained, ctx.Err(), a.refusal))
		case <-timer.C:
		}
	}
}

// setPositive sets *dst to d when d > 0: the options of the polling locks
// ignore values <= 0.
func setPositive(dst *time.Duration, d time.Duration) {
	if d > 0 {
		*dst = d
	}
}

// setBounds sets a pause's bounds *lo and *hi to lo and hi where they are
// > 0, then raises *hi to *lo if smaller.
func setBounds(dstLo, dstHi *time.Duration, lo, hi time.Duration) {
	setPositive(dstLo, lo)
	setPositive(dstHi, hi)
	*dstHi = max(*dstHi, *dstLo)
}

// pollHandle is the part a polling lock's handle (SimpleLock, Redlock)
// has of its own: its lock's key, its owner, its random source, the closed
// flag of the Maker that made it, and its tokens.
type pollHandle struct {
	key    string
	owner  string
	rnd    *rand.Rand
	closed *atomic.Bool // set by the Maker that made the handle; nil if none

	seq   uint64 // attempts made, for unique tokens
	token string // token of the current hold; "" when none
}

// newPollHandle returns the handle of owner on the lock name. Its random
// source mixes seed with name and owner, so that handles made with one
// seed still differ and a run is reproducible from its seed.
func newPollHandle(seed uint64, name, owner string) pollHandle {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write([]byte(owner))
	return pollHandle{key: name, owner: owner, rnd: rand.New(rand.NewPCG(seed, h.Sum64()))}
}

// Name returns the lock's key.
func (h *pollHandle) Name() string { return h.key }

func (h *pollHandle) isClosed() bool { return h.closed != nil && h.closed.Load() }

// nextToken returns a token no attempt of the handle had: owner:<n>.
func (h *pollHandle) nextToken() string {
	h.seq++
	return h.owner + ":" + strconv.FormatUint(h.seq, 10)
}
