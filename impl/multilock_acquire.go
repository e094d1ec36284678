package impl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// tryLock is RedissonMultiLock.tryLock(waitTime, leaseTime, MILLISECONDS):
// wait < 1 ms means no wait (Redisson's -1), lease <= 0 a watchdog-renewed
// hold. Like Redisson's, an attempt that runs out of wait between two
// members gives up even when every member was free, or already held by
// this owner (a re-entry). It returns true when the members it needs are held; false with a
// nil error when the attempt failed; false with an error wrapping
// ErrNotObtained and ctx.Err() when ctx ended (every member taken was
// released first).
func (m *MultiLock) tryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	wait = wait.Truncate(time.Millisecond) // Redisson's waitTime is whole ms: < 1 ms is no wait
	memberLease := time.Duration(-1)
	if lease > 0 {
		memberLease = lease
		if wait > 0 {
			memberLease = 2 * wait
		}
	}
	t := m.now()
	remain := time.Duration(-1)
	if wait > 0 {
		remain = wait
	}
	lockWait := m.calcLockWaitTime(remain)
	failedLimit := m.failedLocksLimit()
	acquired := make([]Locker, 0, len(m.locks))
	for i := 0; i < len(m.locks); i++ {
		l := m.locks[i]
		ok, err := m.tryMember(ctx, l, wait, lease, min(lockWait, remain), memberLease)
		if cerr := ctx.Err(); cerr != nil {
			if ok {
				acquired = append(acquired, l)
			}
			return false, m.abort(acquired, cerr, err)
		}
		if ok {
			acquired = append(acquired, l)
		} else {
			if len(m.locks)-len(acquired) == m.failedLocksLimit() {
				break
			}
			if failedLimit == 0 {
				m.release(ctx, acquired)
				if wait <= 0 {
					return false, nil
				}
				failedLimit = m.failedLocksLimit()
				acquired = acquired[:0]
				i = -1 // start over from the first member
			} else {
				failedLimit--
			}
		}
		if remain > 0 {
			now := m.now()
			remain -= now.Sub(t)
			t = now
			if remain <= 0 {
				m.release(ctx, acquired)
				return false, nil
			}
		}
	}
	if lease > 0 {
		m.expireAll(ctx, acquired, lease)
	}
	return true, nil
}

// tryMember asks one member: one attempt with a watchdog when the caller
// gave neither wait nor lease (Redisson's lock.tryLock()), else
// TryLock(await, memberLease). A member that cannot be re-armed by Expirer
// is given lease itself. A member error counts as a refusal; while ctx
// lives, the member is unlocked in case the failed request took it
// (Redisson does so on a response timeout).
func (m *MultiLock) tryMember(ctx context.Context, l Locker, wait, lease, await, memberLease time.Duration) (bool, error) {
	var (
		ok  bool
		err error
	)
	if wait <= 0 && lease <= 0 {
		ok, err = l.TryLock(ctx, 0, 0)
	} else {
		if _, canExpire := l.(Expirer); !canExpire && lease > 0 {
			memberLease = lease
		}
		ok, err = l.TryLock(ctx, max(await, 0), memberLease)
	}
	if err != nil && ctx.Err() == nil {
		m.release(ctx, []Locker{l})
		return false, err
	}
	return ok && err == nil, err
}

// release unlocks the members taken by a failed attempt, ignoring their
// errors (Redisson's unlockInner). Once ctx has ended it uses a context of
// its own, bounded by the cleanup timeout.
func (m *MultiLock) release(ctx context.Context, locks []Locker) {
	if len(locks) == 0 {
		return
	}
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), m.cleanup)
		defer cancel()
	}
	m.unlockMembers(ctx, locks)
}

// abort releases the members taken after ctx ended and returns the error
// Lock/TryLock report then.
func (m *MultiLock) abort(acquired []Locker, cerr, memberErr error) error {
	cctx, cancel := context.WithTimeout(context.Background(), m.cleanup)
	defer cancel()
	_, errs := m.unlockMembers(cctx, acquired)
	if err := errors.Join(errs...); err != nil {
		// Not ErrNotObtained: a member may still be held, until its lease
		// runs out (the Locker contract reserves ErrNotObtained for
		// "nothing left behind").
		return fmt.Errorf("multilock %q: release after cancellation failed: %w", m.name, errors.Join(cerr, memberErr, err))
	}
	return fmt.Errorf("multilock %q: %w", m.name, errors.Join(ErrNotObtained, cerr, memberErr))
}

// expireAll sets every taken member that implements Expirer to expire lease
// from now (RedissonMultiLock: expireAsync on each acquired lock). Errors
// are ignored, as Redisson's join of the futures ignores a false reply; a
// member left with its longer acquire lease still expires.
func (m *MultiLock) expireAll(ctx context.Context, locks []Locker, lease time.Duration) {
	for _, l := range locks {
		if e, ok := l.(Expirer); ok {
			_, _ = e.Expire(ctx, lease)
		}
	}
}
