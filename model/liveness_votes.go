package model

import "time"

// Split waits. Redisson's RedLock (RedissonRedLock) takes its members one
// after the other, each with its share of the wait (1.5 s in its Lock), and
// tolerates a minority of refusals: a holder that re-enters, or two
// attempts that took different members, wait out each other's share while
// no one holds the lock. Options.SplitWait is that share: the liveness
// checker lets a stretch of waiting on a free lock last FreeWait +
// SplitWait. It changes nothing else: the derived bound (leases) stays.

// freeStretchBound is the bound of checkFreeStretches.
func (o Options) freeStretchBound() time.Duration {
	return o.FreeWait + max(o.SplitWait, 0)
}
