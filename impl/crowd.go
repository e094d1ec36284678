package impl

import "time"

// Every Client subscribed to a reentrant lock's channel receives every
// unlock message: with n waiting processes one grant costs n messages read
// off n connections, whether or not the waiters then try (herd.go spreads
// their attempts, not their reads). Measured with 32 waiters on one lock,
// those reads were half of the clients' CPU time and held the lock to about
// 1,200 grants/s.
//
// A handle that found its lock crowded in its previous call therefore does
// not listen at first: it polls, with a random period, until it has waited
// most of what a call took lately, and only then subscribes and answers
// every unlock message at once. Only the waiters that have waited longest
// listen, so a grant costs a few reads instead of n, and the lock still
// passes to a waiter that has waited long (no starvation of the unlucky).
// The wire is unchanged: a poll is one more acquire script, as after a
// wake-up. A lock that is not crowded (few waiters, or none) is waited for
// exactly as before.
const (
	// crowdLost is the mean number of lost wake-ups (attempts after a
	// wake-up that failed) per call above which the next call starts by
	// polling.
	crowdLost = 1
	// crowdMinWait is the shortest recent wait for which polling pays.
	crowdMinWait = 2 * time.Millisecond
	// crowdMaxPoll bounds the polling phase, so a handle that waited long
	// lately does not wait longer still before it listens.
	crowdMaxPoll = 20 * time.Millisecond
)

// crowd is one handle's memory of how crowded its lock was: the mean wait
// and the mean number of wake-ups lost of its recent calls. A handle is used
// by one goroutine at a time, and so is its crowd.
type crowd struct {
	wait time.Duration // moving mean of the recent calls' waits
	lost float64       // moving mean of the wake-ups the recent calls lost
}

// plan returns, for a call that starts now, the age before which it polls
// instead of listening (0: listen from the first failure) and the mean poll
// period. A nil crowd never polls.
func (c *crowd) plan() (listenAt, period time.Duration) {
	if c == nil || c.lost <= crowdLost || c.wait < crowdMinWait {
		return 0, 0
	}
	listenAt = min(c.wait*7/8, crowdMaxPoll)
	return listenAt, max(listenAt/2, minWait)
}

// done records a call that waited wait and lost lost wake-ups.
func (c *crowd) done(wait time.Duration, lost int) {
	if c == nil {
		return
	}
	c.lost = (3*c.lost + float64(lost)) / 4
	c.wait = (3*c.wait + wait) / 4
}
