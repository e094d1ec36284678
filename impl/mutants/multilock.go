package mutants

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// The multilock mutants: impl.MultiLock (Redisson's RedissonMultiLock and
// RedissonRedLock, ported) over MultiLockMembers correct reentrant locks,
// with one flaw in how the multilock drives its members, each shaped on a
// bug Redisson's multilock shipped. Their flawless control is the
// reference subject multilock (or multilock-redlock): the same multilock
// over the same members.

// MultiLockMembers is how many members the multilock mutants take, named
// by impl.MemberNames, as the multilock reference subjects.
const MultiLockMembers = 3

// multiFlaw is one way a mutant multilock drives its members wrongly.
type multiFlaw int

const (
	// leaseInSeconds: the multilock hands its members the lease as if a
	// count of seconds were one of milliseconds (RedissonMultiLock.lock
	// with a TimeUnit other than MILLISECONDS before 3.25.1, #5484: a
	// lease of 10 s reached the members as 10 ms).
	leaseInSeconds multiFlaw = iota
	// leaseConvertedTwice: the multilock hands its members the lease
	// converted to milliseconds twice, 1000 times too long (Redisson's
	// RedissonMultiLock.lock(lease, SECONDS) after a failed first round,
	// 3.25.1 to 4.7.0: impl/drivers/redisson-java/repro).
	leaseConvertedTwice
	// keepsPartial: an attempt that fails does not release the members it
	// took (RedissonMultiLock before 2.13.2, #1606, kept a member whose
	// reply was lost; here every member taken, after any refusal).
	keepsPartial
	// countsRefused: a member that refused is counted as taken.
	countsRefused
)

// multiLockMutants returns the multilock mutants with watchdogLease as
// their members' watchdog timeout.
func multiLockMutants(watchdogLease time.Duration) []Mutant {
	mk := func(redlock bool, flaw multiFlaw, opts ...impl.MultiLockOption) impl.MakerFunc {
		return multiLockMaker(watchdogLease, redlock, flaw, opts)
	}
	return []Mutant{
		{
			Name: "mutant-multilock-lease-unit",
			Doc: "the multilock passes its lease to the members in the wrong unit, seconds read as milliseconds: each member's hold runs out 1000 times too soon " +
				"(RedissonMultiLock.lock(lease, unit) before 3.25.1, #5484)",
			Catches: "mutual exclusion and linearizability whenever a hold has an explicit lease: another process is granted the members while the holder works",
			Members: MultiLockMembers,
			Open:    mk(false, leaseInSeconds),
		},
		{
			Name: "mutant-multilock-lease-twice",
			Doc: "the multilock passes its lease to the members converted to milliseconds twice, 1000 times too long: a hold outlives its lease by far " +
				"(RedissonMultiLock.lock(lease, SECONDS) after a failed first round, Redisson 3.25.1 to 4.7.0; see the repro)",
			Catches: "liveness and linearizability with explicit leases that run out (overruns): the lock stays held long after the holder's lease, and the others wait on a free lock",
			Members: MultiLockMembers,
			Open:    mk(false, leaseConvertedTwice),
		},
		{
			Name: "mutant-multilock-keeps-partial",
			Doc: "an attempt refused by one member does not unlock the members it took before (RedissonMultiLock before 2.13.2, #1606, did not release a member whose reply was lost): " +
				"the failed caller keeps holds it does not know of, renewed by their watchdogs",
			Catches: "linearizability and liveness: other processes are refused and wait on a lock no holder holds; the caller's own later grants re-enter the orphan holds",
			Members: MultiLockMembers,
			Open:    mk(false, keepsPartial),
		},
		{
			Name:    "mutant-redlock-counts-refused",
			Doc:     "the RedLock counts a member that refused it as taken: it is granted with fewer than a quorum of members, none at all when all refused",
			Catches: "linearizability and mutual exclusion: two RedLock holders at once",
			Quorum:  true,
			Open:    mk(true, countsRefused),
		},
		{
			Name: "mutant-redlock-minority",
			Doc: "the RedLock's quorum is N/2 instead of N/2+1 (one failed member too many tolerated, the failed-locks count Redisson fixed in 2016, 5091f3d): " +
				"1 of 3 members is enough, so two attempts that split the members both win",
			Catches: "linearizability and mutual exclusion under contention: two RedLock holders at once",
			Quorum:  true,
			Open:    mk(true, -1, impl.WithMinLocksAmount(func(n int) int { return n / 2 })),
		},
	}
}

// multiLockMaker makes multilocks (redlock: RedLocks) over correct
// reentrant members whose calls go through the flaw (-1: none).
func multiLockMaker(watchdogLease time.Duration, redlock bool, flaw multiFlaw, opts []impl.MultiLockOption) impl.MakerFunc {
	member := impl.ReentrantMaker(impl.WithWatchdogTimeout(watchdogLease))
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		inner, err := member(ctx, rdb)
		if err != nil {
			return nil, err
		}
		return &flawedMultiMaker{inner: inner, redlock: redlock, flaw: flaw, opts: opts}, nil
	}
}

type flawedMultiMaker struct {
	inner   impl.Maker
	redlock bool
	flaw    multiFlaw
	opts    []impl.MultiLockOption
}

func (m *flawedMultiMaker) NewLocker(name, owner string) impl.Locker {
	st := &multiState{flaw: m.flaw}
	var locks []impl.Locker
	for _, mn := range impl.MemberNames(name, MultiLockMembers) {
		locks = append(locks, &flawedMember{Locker: m.inner.NewLocker(mn, owner), st: st})
	}
	ml := impl.NewMultiLock(name, locks, m.opts...)
	if m.redlock {
		ml = impl.NewRedissonRedLock(name, locks, m.opts...)
	}
	return &flawedMulti{MultiLock: ml, st: st}
}

func (m *flawedMultiMaker) Close() error { return m.inner.Close() }

// multiState is shared by a mutant multilock and its members: its flaw and
// whether the multilock is inside Lock or TryLock (a handle is used by one
// goroutine at a time).
type multiState struct {
	flaw      multiFlaw
	acquiring bool
}

// lease is the lease the members get for a multilock lease d > 0.
func (st *multiState) lease(d time.Duration) time.Duration {
	switch st.flaw {
	case leaseInSeconds:
		return max(d/1000, time.Millisecond)
	case leaseConvertedTwice:
		return d * 1000
	}
	return d
}

// flawedMulti marks the multilock's acquires for its members.
type flawedMulti struct {
	*impl.MultiLock
	st *multiState
}

func (h *flawedMulti) Lock(ctx context.Context, lease time.Duration) error {
	h.st.acquiring = true
	defer func() { h.st.acquiring = false }()
	return h.MultiLock.Lock(ctx, lease)
}

func (h *flawedMulti) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	h.st.acquiring = true
	defer func() { h.st.acquiring = false }()
	return h.MultiLock.TryLock(ctx, wait, lease)
}

// flawedMember is one member seen through the flaw.
type flawedMember struct {
	impl.Locker
	st *multiState
}

func (f *flawedMember) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if lease > 0 {
		lease = f.st.lease(lease)
	}
	ok, err := f.Locker.TryLock(ctx, wait, lease)
	if f.st.flaw == countsRefused && f.st.acquiring && err == nil && !ok {
		return true, nil
	}
	return ok, err
}

func (f *flawedMember) Unlock(ctx context.Context) error {
	if f.st.flaw == keepsPartial && f.st.acquiring {
		return nil // the failed attempt's release never reaches the member
	}
	return f.Locker.Unlock(ctx)
}

// Expire re-arms the member to the multilock's lease (in the wrong unit
// too, for the lease flaws).
func (f *flawedMember) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	e, ok := f.Locker.(impl.Expirer)
	if !ok {
		return false, nil
	}
	return e.Expire(ctx, f.st.lease(ttl))
}

func (f *flawedMember) Abandon() {
	if a, ok := f.Locker.(impl.Abandoner); ok {
		a.Abandon()
	}
}
