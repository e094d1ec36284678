package impl

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// MultiLock is a Go port of Redisson's RedissonMultiLock and, made with
// NewRedissonRedLock, of its subclass RedissonRedLock: N member locks of
// any kind (each a Locker, typically RLocks on one or several Redis
// servers) managed as one lock.
//
// It is not the RedLock of redlock.go. That one is the Redis docs'
// algorithm over N independent nodes: plain SET NX PX keys, all nodes asked
// in parallel, a validity computed from the elapsed time and the clock
// drift. RedissonRedLock is a different algorithm that happens to share the
// name: it composes N full RLocks (reentrant hashes, watchdog renewal,
// pub/sub wake-ups), asks them one after the other, each with its share of
// the wait, and computes no validity. The two keep different keys and
// cannot share a lock; so the port is a MultiLock with Redisson's quorum
// rule, not a variant of Redlock.
//
// Guarantees, as Redisson's (RedissonMultiLock.tryLock(wait, lease, unit)):
//   - An attempt takes the members in order, each with
//     TryLock(min(perLockWait, remaining), memberLease), and stops when
//     the wait is used up. perLockWait is the whole remaining wait for a
//     MultiLock and max(remaining/N, 1 ms) for a RedLock.
//   - MultiLock: one member refused (or failing with an error) releases
//     every member taken so far; with a wait the attempt starts over from
//     the first member while time remains, without one it returns false.
//   - RedLock: up to N − (N/2+1) members may fail; the lock is held as soon
//     as N/2+1 members are (the members that failed are not held).
//   - memberLease is lease when there is no wait and 2×wait when there is;
//     once all members are taken each member that implements Expirer is
//     set to expire lease after that point (Redisson's expireAsync, a plain
//     PEXPIRE). A member that does not implement Expirer is locked with
//     lease itself, as it cannot be re-armed later. lease <= 0 asks every
//     member for a watchdog-renewed hold.
//   - When the wait runs out after a member was taken, every member taken
//     is released and the attempt fails, even if it was the last.
//   - Lock repeats attempts, each with Redisson's wait (N × 1.5 s without
//     a lease; a random wait in [lease/2, lease) or [N × 1.5 s, lease)
//     with one), until one succeeds or ctx ends.
//   - Unlock releases every member (RedissonMultiLock.unlockAsync; the
//     synchronous unlock() stops at the first member that throws, leaving
//     the later ones held). See Unlock for what it reports.
//
// A member error never propagates as a hold: on ctx's end Lock/TryLock
// release the members they took (on a context of their own, bounded by
// WithMultiLockCleanupTimeout) and return an error wrapping ErrNotObtained
// and ctx.Err(). A MultiLock is used by one goroutine at a time.
type MultiLock struct {
	name     string
	locks    []Locker
	redlock  bool
	rnd      *rand.Rand
	cleanup  time.Duration
	now      func() time.Time
	minLocks func(n int) int // RedLock: members it must hold (Redisson's minLocksAmount)
}

var (
	_ Locker    = (*MultiLock)(nil)
	_ Abandoner = (*MultiLock)(nil)
)

// ErrNoMembers is returned by every call on a MultiLock made without locks
// (Redisson's constructor refuses them with IllegalArgumentException).
var ErrNoMembers = errors.New("multilock: no member locks")

// DefaultMultiLockCleanupTimeout bounds the releases a cancelled acquire
// sends to the members it took.
const DefaultMultiLockCleanupTimeout = 2 * time.Second

// MultiLockOption configures a MultiLock.
type MultiLockOption func(*MultiLock)

// WithMultiLockSeed seeds the random wait of Lock's attempts with a lease
// (Redisson's ThreadLocalRandom). The seed is mixed with the lock's name,
// so that handles made with one seed still differ. Default 0.
func WithMultiLockSeed(seed uint64) MultiLockOption {
	return func(m *MultiLock) {
		h := fnv.New64a()
		h.Write([]byte(m.name))
		m.rnd = rand.New(rand.NewPCG(seed, h.Sum64()))
	}
}

// WithMultiLockCleanupTimeout bounds the releases sent after ctx ended.
// Values <= 0 are ignored.
func WithMultiLockCleanupTimeout(d time.Duration) MultiLockOption {
	return func(m *MultiLock) {
		if d > 0 {
			m.cleanup = d
		}
	}
}

// WithMinLocksAmount sets how many of its n members a RedLock must hold:
// Redisson's RedissonRedLock.minLocksAmount, a protected method meant to be
// overridden (default n/2+1). Values are clamped to [1, n]. It does not
// change a MultiLock, which holds all members.
func WithMinLocksAmount(f func(n int) int) MultiLockOption {
	return func(m *MultiLock) {
		if f != nil {
			m.minLocks = f
		}
	}
}

// NewMultiLock returns a RedissonMultiLock over locks, named name (for
// errors only). All members must be held for the lock to be held.
func NewMultiLock(name string, locks []Locker, opts ...MultiLockOption) *MultiLock {
	return newMultiLock(name, locks, false, opts)
}

// NewRedissonRedLock returns a RedissonRedLock over locks: a MultiLock held
// once N/2+1 of its N members are.
func NewRedissonRedLock(name string, locks []Locker, opts ...MultiLockOption) *MultiLock {
	return newMultiLock(name, locks, true, opts)
}

func newMultiLock(name string, locks []Locker, redlock bool, opts []MultiLockOption) *MultiLock {
	m := &MultiLock{
		name:     name,
		locks:    locks,
		redlock:  redlock,
		cleanup:  DefaultMultiLockCleanupTimeout,
		now:      time.Now,
		minLocks: func(n int) int { return n/2 + 1 },
	}
	WithMultiLockSeed(0)(m)
	for _, opt := range opts {
		opt(m)
	}
	return m
}

// Members returns the member locks, in acquire order.
func (m *MultiLock) Members() []Locker { return m.locks }

// Quorum is how many members must be held: N for a MultiLock, N/2+1 for a
// RedLock.
func (m *MultiLock) Quorum() int { return len(m.locks) - m.failedLocksLimit() }

// failedLocksLimit is how many members may fail in one attempt: 0 for a
// MultiLock, N − minLocksAmount (N/2+1) for a RedLock
// (RedissonRedLock.failedLocksLimit).
func (m *MultiLock) failedLocksLimit() int {
	if !m.redlock {
		return 0
	}
	n := len(m.locks)
	return n - min(max(m.minLocks(n), 1), n)
}

// calcLockWaitTime is the per-member wait for a remaining wait remain (< 0:
// no wait): remain for a MultiLock, max(remain/N, 1 ms) for a RedLock, in
// whole milliseconds as Redisson computes it.
func (m *MultiLock) calcLockWaitTime(remain time.Duration) time.Duration {
	if !m.redlock {
		return remain
	}
	ms := remain.Milliseconds() / int64(len(m.locks)) // Java's long division
	return time.Duration(max(ms, 1)) * time.Millisecond
}

// Lock takes every member (a quorum for a RedLock), attempt after attempt,
// until one attempt succeeds or ctx ends (RedissonMultiLock.lockInterruptibly).
func (m *MultiLock) Lock(ctx context.Context, lease time.Duration) error {
	if len(m.locks) == 0 {
		return ErrNoMembers
	}
	base := time.Duration(len(m.locks)) * 1500 * time.Millisecond
	for {
		wait := base
		if lease > 0 {
			lo, hi := lease/2, lease
			if lease > base {
				lo = base
			}
			wait = lo + time.Duration(m.rnd.Int64N(max(int64(hi-lo), 1)))
		}
		ok, err := m.tryLock(ctx, wait, lease)
		if ok {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(err, ErrNotObtained) {
				return err
			}
			return fmt.Errorf("multilock %q: %w", m.name, errors.Join(ErrNotObtained, cerr, err))
		}
	}
}

// TryLock makes attempts for at most wait (wait <= 0: one attempt, which
// fails at the first member refused) and reports false with a nil error
// when they failed. Member errors count as refusals, as in Redisson.
func (m *MultiLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if len(m.locks) == 0 {
		return false, ErrNoMembers
	}
	return m.tryLock(ctx, wait, lease)
}

// Unlock releases every member, in order. The MultiLock's error joins the
// members' errors (each wrapping ErrNotOwner for a member this owner no
// longer held). A RedLock reports success when a quorum of members were
// released and otherwise an error wrapping ErrNotOwner if that is why:
// Redisson's RedissonRedLock.unlock swallows every member's error, which
// would tell a caller that lost its hold that it released it.
func (m *MultiLock) Unlock(ctx context.Context) error {
	if len(m.locks) == 0 {
		return ErrNoMembers
	}
	released, errs := m.unlockMembers(ctx, m.locks)
	if !m.redlock || released < m.Quorum() {
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("multilock %q: unlock: %d of %d members released: %w", m.name, released, len(m.locks), err)
		}
	}
	return nil
}

// unlockMembers unlocks each of locks and returns how many released a hold
// and the others' errors.
func (m *MultiLock) unlockMembers(ctx context.Context, locks []Locker) (int, []error) {
	var errs []error
	released := 0
	for _, l := range locks {
		if err := l.Unlock(ctx); err != nil {
			errs = append(errs, err)
			continue
		}
		released++
	}
	return released, errs
}

// Abandon abandons every member that has background renewal.
func (m *MultiLock) Abandon() {
	for _, l := range m.locks {
		if a, ok := l.(Abandoner); ok {
			a.Abandon()
		}
	}
}
