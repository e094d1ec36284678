package model

// Split votes and liveness. A quorum lock (Options.SplitVotes: the Redis
// docs' RedLock, Redisson's RedissonRedLock and MultiLock) has members —
// nodes, member locks — that an attempt in flight holds for a while, won or
// not: while other attempts are in flight, a waiter may wait for members
// they hold even though no one holds the lock. Redisson's RedLock takes its
// members one by one, each with its share of the wait, so that wait lasts
// up to a share (1.5 s in its Lock): a holder re-entering, or two attempts
// that took different members, wait out each other's share. The liveness
// checker counts such time as contended, not free.

// inFlight returns, for lock l and each process, the spans of its acquires
// (call to deadline), which under SplitVotes explain other processes'
// waits; nil otherwise.
func inFlight(h *History, opts Options, l string) map[int][]span {
	if !opts.SplitVotes {
		return nil
	}
	out := map[int][]span{}
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Lock == l && o.Kind == Acquire {
			out[o.Process] = append(out[o.Process], span{o.Call, o.effectiveDeadline()})
		}
	}
	return out
}
