package impl

import (
	"context"
	"time"
)

// Expirer is implemented by handles whose lock key's time to live can be
// set outright, whoever holds the lock (Redisson's RedissonBaseLock
// expireAsync, a plain PEXPIRE of the lock's key). MultiLock uses it to
// give its members their lease once all are held.
type Expirer interface {
	// Expire sets the lock's key to expire ttl from now and reports
	// whether the key existed.
	Expire(ctx context.Context, ttl time.Duration) (bool, error)
}

var _ Expirer = (*ReentrantLock)(nil)

// Expire sets the lock's hash to expire ttl from now (PEXPIRE, not
// owner-checked, as Redisson's). When this handle holds the lock with an
// explicit lease, its Lost signal is re-armed to the new expiry.
func (l *ReentrantLock) Expire(ctx context.Context, ttl time.Duration) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	since := time.Now()
	ok, err := l.c.rdb.PExpire(ctx, l.name, time.Duration(millis(ttl))*time.Millisecond).Result()
	if err == nil && ok {
		l.hold.rearm(since, ttl)
	}
	return ok, err
}

// rearm moves the lost timer of an explicit-lease hold to since+lease (a
// watchdog-renewed hold is left as it is). The lease a partial unlock
// re-arms stays that of the grant, as Redisson's internalLockLeaseTime.
func (h *holdState) rearm(since time.Time, lease time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count == 0 || h.wd != nil || h.lost == nil {
		return
	}
	if h.timer != nil {
		h.timer.Stop()
	}
	h.timer = time.AfterFunc(time.Until(since.Add(lease)), h.lost.mark)
}
