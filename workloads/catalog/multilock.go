package catalog

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// MultiLockMembers is how many member locks the multilock subjects take
// (impl.MemberNames: the lock's name, then name:m1, name:m2), Go ports and
// Redisson's alike.
const MultiLockMembers = 3

// RedLockSplitWait is the share of the wait a RedissonRedLock's Lock gives
// each member (N × 1.5 s / N): two of its attempts that took different
// members, or a holder re-entering, may wait it out on a free lock
// (subject.Subject.SplitWait).
const RedLockSplitWait = 1500 * time.Millisecond

// multiLockSubjects lists the Go ports of RedissonMultiLock and
// RedissonRedLock over reentrant member locks on the run's one Redis.
//
// Both set SplitVotes: a failing attempt holds some members for a moment,
// so a refusal while no one holds the lock is legal when another acquire
// was in flight; and WaitSpent: an attempt that runs out of wait between
// two members gives up, even on free members or on a re-entry. The RedLock names no Members: a quorum grant does not say
// which members it holds, so it is checked as one lock (its name), and a
// mixed fleet with plain holders of a member would not be a claim of it.
func multiLockSubjects() []subject.Subject {
	open := func(redlock bool) func(subject.OpenOptions) impl.MakerFunc {
		return func(o subject.OpenOptions) impl.MakerFunc {
			return impl.MultiLockMaker(impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease)),
				MultiLockMembers, redlock, uint64(o.Seed))
		}
	}
	return []subject.Subject{
		{
			Name: "multilock", Kind: subject.KindReference, Reentrant: true, SplitVotes: true, WaitSpent: true, Members: MultiLockMembers,
			Doc:       "RedissonMultiLock port over 3 reentrant locks (the name, name:m1, name:m2): all members in order, each with the remaining wait",
			Configure: open(false),
		},
		{
			Name: "multilock-redlock", Kind: subject.KindReference, Reentrant: true, SplitVotes: true, WaitSpent: true, SplitWait: RedLockSplitWait,
			Doc:       "RedissonRedLock port: the multilock held by a quorum (2 of 3) of its reentrant members, each with max(remaining/3, 1 ms)",
			Configure: open(true),
		},
	}
}
