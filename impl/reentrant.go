package impl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// ReentrantLock is one owner's handle on a Redisson-compatible reentrant,
// non-fair lock (RLock): a hash <name> whose field <clientId>:<owner> counts
// the owner's holds, unlock messages on redisson_lock__channel:{<name>}, and
// unlock latches redisson_unlock_latch:{<name>}:<requestId>.
//
// Lock/TryLock with lease <= 0 take a watchdog-renewed hold (PEXPIRE to the
// watchdog timeout every timeout/3); with lease > 0 the hold expires after
// lease and nothing renews it. Locking again through the same handle (or
// another handle of the same Client and owner) re-enters and resets the TTL.
// A handle is used by one goroutine at a time; Lost, Abandon, IsHeldByMe and
// the other read-only calls may be called concurrently.
type ReentrantLock struct {
	c       *Client
	name    string
	owner   string
	field   string
	channel string
	fenced  bool

	hold  holdState
	token int64 // fenced: token of the last grant; guarded by hold.mu
	crowd crowd // how crowded the lock was in recent calls (crowd.go)
}

func newReentrant(c *Client, name, owner string, fenced bool) *ReentrantLock {
	return &ReentrantLock{
		c:       c,
		name:    name,
		owner:   owner,
		field:   OwnerField(c.id, owner),
		channel: ChannelName(name),
		fenced:  fenced,
	}
}

var (
	_ Locker        = (*ReentrantLock)(nil)
	_ LeaseWatcher  = (*ReentrantLock)(nil)
	_ Abandoner     = (*ReentrantLock)(nil)
	_ HoldCounter   = (*ReentrantLock)(nil)
	_ TTLReporter   = (*ReentrantLock)(nil)
	_ ForceUnlocker = (*ReentrantLock)(nil)
)

// Name is the lock's name (its hash key).
func (l *ReentrantLock) Name() string { return l.name }

// Field is this owner's hash field, <clientId>:<owner>.
func (l *ReentrantLock) Field() string { return l.field }

// Lock blocks until the lock is granted or ctx ends (then the error wraps
// ErrNotObtained and ctx.Err(), and no hold of this call is left behind).
// lease <= 0 asks for a watchdog-renewed hold.
func (l *ReentrantLock) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, -1, lease)
	return err
}

// TryLock waits at most wait for the lock (wait <= 0: one attempt) and
// reports false with a nil error when another owner held it all that time.
// lease <= 0 asks for a watchdog-renewed hold. A non-nil error means the
// outcome was not established (the lock then cleaned up or will expire).
func (l *ReentrantLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return l.acquire(ctx, max(wait, 0), lease)
}

// grant is the parsed answer of an acquire script.
type grant struct {
	ok    bool
	count int           // holds after the grant
	ttl   time.Duration // when not ok: the holder's remaining TTL (< 0: none)
	token int64         // fenced only
}

func (l *ReentrantLock) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return l.c.acquireHold(ctx, l, l.channel, &l.crowd, l.hold.held(), wait, lease)
}

func (l *ReentrantLock) tryOnce(ctx context.Context, lease time.Duration) (grant, error) {
	keys := []string{l.name}
	script := reentrantAcquire
	if l.fenced {
		keys = append(keys, TokenName(l.name))
		script = fencedAcquire
	}
	cmd := script.Run(ctx, l.c.scripter(true), keys, millis(l.leaseOrWatchdog(lease)), l.field)
	vals, err := cmd.Int64Slice()
	if errors.Is(err, ErrNotSynced) {
		return l.unsynced(cmd, lease, err)
	}
	if err != nil {
		return grant{}, err
	}
	if len(vals) < 2 || (l.fenced && len(vals) < 3) {
		return grant{}, fmt.Errorf("lock %q: acquire script returned %v", l.name, vals)
	}
	if vals[0] != 1 {
		return grant{ttl: time.Duration(vals[1]) * time.Millisecond}, nil
	}
	g := grant{ok: true, count: int(vals[1])}
	if l.fenced {
		g.token = vals[2]
	}
	return g, nil
}

func (l *ReentrantLock) leaseOrWatchdog(lease time.Duration) time.Duration {
	if lease <= 0 {
		return l.c.opts.watchdogTimeout
	}
	return lease
}

func (l *ReentrantLock) granted(since time.Time, lease time.Duration, g grant) error {
	if l.fenced {
		l.hold.mu.Lock()
		l.token = g.token
		l.hold.mu.Unlock()
	}
	return l.hold.granted(l.c, since, lease, g.count, l.renew)
}

// resolve settles an acquire attempt whose outcome is unknown by reading this
// owner's hold count on a fresh, bounded context: only this owner changes its
// field, so a count above the one held before means the script ran. If it ran
// and the caller still waits, the grant stands; if the caller's ctx ended, it
// is undone with one unlock (ErrNotObtained). If the caller's ctx ended and
// the script had not run, it may still be on its way (see below): the error
// says the outcome is unknown (errInFlight), never ErrNotObtained. If the
// count cannot be read, the error says the outcome is unknown too; a first
// hold taken that way has no watchdog and expires within its lease.
//
// Residual window: the read runs on another connection than the aborted
// attempt, so an attempt still in transit (held up in a slow proxy) can run
// after the read said it did not. Such a hold is a first hold without a
// watchdog (it expires within its lease) or, if the handle already held the
// lock, one extra count: the handle's final Unlock then leaves one count in
// Redis, no longer renewed, which expires within the watchdog timeout (or is
// released by one more Unlock).
func (l *ReentrantLock) resolve(ctx context.Context, tryErr error, before int, since time.Time, lease time.Duration) (bool, error) {
	cctx, cancel := l.c.cleanupContext()
	defer cancel()
	n, err := l.c.rdb.HGet(cctx, l.name, l.field).Int()
	if errors.Is(err, redis.Nil) {
		n, err = 0, nil
	}
	if err != nil {
		return false, fmt.Errorf("lock %q: acquire outcome unknown: %w", l.name, errors.Join(tryErr, err))
	}
	applied := n > before
	if cerr := ctxEnded(ctx); cerr != nil {
		if applied {
			if _, uerr := l.unlockScript(cctx, lease); uerr != nil {
				// Not ErrNotObtained: the hold may still be there (a first
				// hold has no watchdog and expires within its lease).
				return false, fmt.Errorf("lock %q: undo of an acquire after cancellation failed: %w",
					l.name, errors.Join(cerr, uerr))
			}
		}
		return false, errInFlight(l.name, tryErr, cerr)
	}
	if !applied {
		return false, fmt.Errorf("lock %q: acquire: %w", l.name, tryErr)
	}
	var token int64
	if l.fenced {
		if token, err = l.c.rdb.Get(cctx, TokenName(l.name)).Int64(); err != nil {
			token = 0 // unknown; Token reports 0 rather than a guess
		}
	}
	if err := l.granted(since, lease, grant{ok: true, count: n, token: token}); err != nil {
		return false, err
	}
	return true, nil
}

// Unlock releases one hold. It returns an error wrapping ErrNotOwner when this
// owner holds nothing (it never locked, or its lease ran out). The final
// unlock stops the watchdog before the script runs. An error other than
// ErrNotOwner means the outcome is unknown; renewal is stopped either way, so
// a hold left behind expires within its lease.
func (l *ReentrantLock) Unlock(ctx context.Context) error {
	return l.c.releaseHold(ctx, &l.hold, l.name, l.field, l.unlockScript)
}

// unlockScript runs the unlock script with the latch; lease (<= 0: the
// watchdog timeout) is re-armed on a partial unlock.
func (l *ReentrantLock) unlockScript(ctx context.Context, lease time.Duration) (int64, error) {
	lease = l.leaseOrWatchdog(lease)
	keys := []string{l.name, l.channel, ""}
	return l.c.unlockWithLatch(ctx, l.name, func(ctx context.Context, latch string) (int64, error) {
		keys[2] = latch
		return reentrantUnlock.Run(ctx, l.c.scripter(false), keys,
			unlockMessage, millis(lease), l.field, publishCommand, l.c.latchTTLMillis()).Int64()
	})
}

func (l *ReentrantLock) renew(ctx context.Context) (bool, error) {
	n, err := reentrantRenew.Run(ctx, l.c.scripter(false), []string{l.name},
		millis(l.c.opts.watchdogTimeout), l.field).Int64()
	return n == 1, err
}

// ForceUnlock deletes the lock whoever holds it and publishes the unlock
// message; it reports whether the lock existed. This handle's renewal stops.
func (l *ReentrantLock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	l.hold.abandon()
	n, err := reentrantForceUnlock.Run(ctx, l.c.rdb, []string{l.name, l.channel},
		unlockMessage, publishCommand).Int64()
	return n == 1, err
}

// IsLocked reports whether any owner holds the lock (EXISTS).
func (l *ReentrantLock) IsLocked(ctx context.Context) (bool, error) {
	n, err := l.c.rdb.Exists(ctx, l.name).Result()
	return n == 1, err
}

// IsHeldByMe reports whether this owner holds the lock in Redis (HEXISTS).
func (l *ReentrantLock) IsHeldByMe(ctx context.Context) (bool, error) {
	return l.c.rdb.HExists(ctx, l.name, l.field).Result()
}

// HoldCount reports this owner's hold count in Redis (HGET; 0 when none).
func (l *ReentrantLock) HoldCount(ctx context.Context) (int, error) {
	s, err := l.c.rdb.HGet(ctx, l.name, l.field).Result()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

// RemainTTL reports the lock's remaining time to live (PTTL): -2 ms when the
// lock does not exist, -1 ms when it has no expiry.
func (l *ReentrantLock) RemainTTL(ctx context.Context) (time.Duration, error) {
	ms, err := l.c.rdb.PTTL(ctx, l.name).Result()
	if err != nil {
		return 0, err
	}
	// go-redis maps -1/-2 to -1ns/-2ns; PTTL otherwise answers whole ms.
	if ms < 0 && ms > -time.Millisecond {
		return ms * time.Millisecond, nil
	}
	return ms, nil
}

// Lost returns a channel closed when the current hold can no longer be
// guaranteed: the watchdog found the hold gone, no renewal succeeded before
// the lease could have run out, an explicit lease ran out, the hold was
// abandoned, or the Client closed. It is nil when the handle holds nothing.
func (l *ReentrantLock) Lost() <-chan struct{} { return l.hold.lostC() }

// Abandon stops renewal without unlocking and forgets the hold, which then
// expires within its lease (the harness retires a process this way).
func (l *ReentrantLock) Abandon() { l.hold.abandon() }
