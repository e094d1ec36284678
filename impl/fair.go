package impl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// FairLock is one owner's handle on a Redisson-compatible fair lock
// (RFairLock): the reentrant lock's hash <name>, plus a FIFO queue of owner
// fields redisson_lock_queue:{<name>}, their deadlines in the ZSET
// redisson_lock_timeout:{<name>} (epoch ms, the waiters' clocks), and one
// wake-up channel per waiter, redisson_lock__channel:{<name>}:<clientId>:<owner>,
// on which an unlock wakes only the queue's head.
//
// Guarantees, as in Redisson: the lock is granted in queue order; a waiter
// enqueues with the deadline of the waiter ahead of it (or the lock's TTL)
// plus its wait (threadWaitTime for Lock, the wait for TryLock) and is
// evicted once its deadline has passed while it is at the head, so a waiter
// whose process is gone delays the others by at most its wait. A live waiter
// evicted that way (the holder held longer than its deadline allowed) queues
// again at the tail. A waiter that gives up (wait over, ctx ended) removes
// itself and moves everyone behind it earlier by its wait. TryLock with
// wait 0 never queues. Deadlines use the client clock: skew between clients
// skews evictions. Beyond Redisson, a grant moves the remaining deadlines
// (Redisson: earlier by the grantee's wait) no further than leaves the new
// head its wait after the new hold's lease: otherwise, once the queue had
// stayed busy longer than a lease, a live head with a short wait was
// evicted by the next caller, who overtook it. Also beyond Redisson, an
// unlock's wake-up is never lost with the head it went to: when a waiter
// leaves the queue, or a script purges a stale head, while the lock is
// free, the new head is woken (otherwise it would sleep until the holder's
// TTL it last saw, a whole lease).
//
// Beside Redisson's own RFairLock on one lock (a mixed fleet), mutual
// exclusion and hand-offs hold, FIFO does not: each side's scripts move the
// other's deadlines their own way (docs/drivers.md, mixed fleets).
//
// Reentrancy, leases, the watchdog, Lost and Abandon work as for
// ReentrantLock. Unlike Redisson, Unlock of a lock nobody holds (its lease
// ran out) returns ErrNotOwner (Redisson reports success); it still wakes
// the head waiter.
type FairLock struct {
	c       *Client
	view    *ReentrantLock // the same hash: read-only queries and renewal
	name    string
	field   string
	channel string   // this owner's wake-up channel
	keys    []string // the lock, its queue and deadlines, the channel prefix

	hold       holdState
	onEnqueued func(at time.Time)
}

var (
	_ Locker        = (*FairLock)(nil)
	_ Enqueuer      = (*FairLock)(nil)
	_ LeaseWatcher  = (*FairLock)(nil)
	_ Abandoner     = (*FairLock)(nil)
	_ HoldCounter   = (*FairLock)(nil)
	_ TTLReporter   = (*FairLock)(nil)
	_ ForceUnlocker = (*FairLock)(nil)
)

// fairPollMax bounds the backoff of a waiter that finds the lock free while
// another waiter is at the head: that waiter takes it in a moment, or is
// evicted at its deadline if its process is gone. (Redisson polls without
// sleeping here, §2.7 item 4.)
const fairPollMax = 50 * time.Millisecond

// Fair returns the handle of owner on the fair lock name (Redisson
// RFairLock). Handles with the same Client and owner share holds and a
// queue place.
func (c *Client) Fair(name, owner string) *FairLock {
	view := newReentrant(c, name, owner, false)
	return &FairLock{
		c:       c,
		view:    view,
		name:    name,
		field:   view.field,
		channel: FairChannelName(name, view.field),
		keys:    []string{name, QueueName(name), TimeoutName(name), ChannelName(name)},
	}
}

// FairMaker is ReentrantMaker for fair handles (Client.Fair); they implement
// Enqueuer.
func FairMaker(opts ...Option) MakerFunc {
	return makerFunc(func(c *Client, name, owner string) Locker { return c.Fair(name, owner) }, opts)
}

// Name is the lock's name (its hash key).
func (l *FairLock) Name() string { return l.name }

// Field is this owner's hash field and queue entry, <clientId>:<owner>.
func (l *FairLock) Field() string { return l.field }

// OnEnqueued sets a callback that Lock and TryLock (with a wait) call from
// the calling goroutine, with the time the reply arrived, when an acquire
// script has put this request in the queue: once per request, and again
// only if the request was evicted and queued anew at the tail. A grant on
// the first attempt never calls it. Set it before Lock/TryLock.
func (l *FairLock) OnEnqueued(f func(at time.Time)) { l.onEnqueued = f }

// Lock blocks until the lock is granted or ctx ends; then the error wraps
// ErrNotObtained and ctx.Err(), and the request has left the queue. lease <= 0
// asks for a watchdog-renewed hold. The waiter's place is kept for
// threadWaitTime beyond the wait ahead of it.
func (l *FairLock) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, -1, lease)
	return err
}

// TryLock waits at most wait in the queue (wait <= 0: one attempt that never
// queues) and reports false with a nil error when the wait ran out; the
// request then has left the queue. lease <= 0 asks for a watchdog-renewed
// hold. A non-nil error means the outcome was not established.
func (l *FairLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return l.acquire(ctx, max(wait, 0), lease)
}

// fairReply is the parsed answer of a fair acquire script.
type fairReply struct {
	ok    bool
	count int   // holds after the grant
	pttl  int64 // when not ok: the lock's PTTL in ms (-2 free, -1 no expiry)
	fresh bool  // when not ok: this call put the caller in the queue
}

func (l *FairLock) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	waitArg := l.c.opts.threadWaitTime
	if wait > 0 {
		waitArg = wait
	}
	var deadline time.Time
	if wait >= 0 {
		deadline = time.Now().Add(wait)
	}
	before := l.hold.held()
	var (
		since  time.Time
		r      fairReply
		queued bool // a reply said the caller is in the queue
		idle   int  // consecutive replies "free, but not your turn"
	)
	try := func(ctx context.Context) (bool, time.Duration, error) {
		since = time.Now()
		var err error
		r, err = l.tryOnce(ctx, wait == 0, lease, waitArg, l.c.opts.clock.Now())
		if err != nil || r.ok {
			return r.ok, 0, err
		}
		if wait != 0 {
			queued = true
		}
		if r.fresh && l.onEnqueued != nil {
			l.onEnqueued(time.Now())
		}
		return false, fairSleep(r.pttl, &idle), nil
	}
	for {
		left := time.Duration(-1)
		if !deadline.IsZero() {
			left = max(time.Until(deadline), 0)
		}
		out, err := l.c.waitAcquire(ctx, l.channel, left, nil, try)
		if out == waitAcquired {
			if err := l.hold.granted(l.c, since, lease, r.count, l.view.renew); err != nil {
				return false, err // Client closed: the hold is not renewed and expires
			}
			return true, nil
		}
		if out != waitUncertain {
			if queued {
				if cerr := l.leave(waitArg); cerr != nil {
					return false, l.leaveFailed(ctx, err, cerr)
				}
			}
			return false, err
		}
		granted, settled, rerr := l.resolve(ctx, err, before, since, lease, waitArg, deadline)
		if settled {
			return granted, rerr
		}
		queued = true // the attempt may have queued the caller
	}
}

func (l *FairLock) tryOnce(ctx context.Context, once bool, lease, wait time.Duration, now time.Time) (fairReply, error) {
	var (
		vals []int64
		err  error
	)
	leaseArg := millis(l.leaseOrWatchdog(lease))
	var cmd *redis.Cmd
	if once {
		cmd = fairTryAcquire.Run(ctx, l.c.scripter(true), l.keys, leaseArg, l.field, now.UnixMilli(), millis(wait),
			unlockMessage, publishCommand)
	} else {
		cmd = fairAcquire.Run(ctx, l.c.scripter(true), l.keys, leaseArg, l.field, millis(wait), now.UnixMilli(),
			unlockMessage, publishCommand)
	}
	vals, err = cmd.Int64Slice()
	if errors.Is(err, ErrNotSynced) {
		vals, err = l.unsynced(cmd, once, lease, err)
	}
	if err != nil {
		return fairReply{}, err
	}
	switch {
	case len(vals) == 2 && vals[0] == 1:
		return fairReply{ok: true, count: int(vals[1])}, nil
	case len(vals) == 2 && once:
		return fairReply{pttl: vals[1]}, nil
	case len(vals) == 4 && !once:
		return fairReply{pttl: vals[2], fresh: vals[3] == 1}, nil
	}
	return fairReply{}, fmt.Errorf("lock %q: fair acquire script returned %v", l.name, vals)
}

// fairSleep turns the lock's PTTL into the longest sleep before the next
// attempt (an unlock wakes the head earlier): the holder's TTL, unknown (-1)
// for a lock without expiry, or, when the lock is free but another waiter is
// at the head, a backoff from 1 ms to fairPollMax.
func fairSleep(pttl int64, idle *int) time.Duration {
	switch {
	case pttl > 0:
		*idle = 0
		return time.Duration(pttl) * time.Millisecond
	case pttl == -1:
		*idle = 0
		return -1
	}
	d := minWait << min(*idle, 16)
	*idle++
	return min(d, fairPollMax)
}

func (l *FairLock) leaseOrWatchdog(lease time.Duration) time.Duration {
	if lease <= 0 {
		return l.c.opts.watchdogTimeout
	}
	return lease
}

// resolve settles an attempt whose outcome is unknown, on a fresh bounded
// context, by reading this owner's hold count (only this owner changes its
// field). settled false means the attempt did not grant and the caller still
// waits: the loop goes on (the caller's queue place, if the attempt made
// one, stands). Otherwise granted and err are the acquire's result: a grant
// that applied stands, or is undone when ctx ended; a request that is not
// granted leaves the queue.
func (l *FairLock) resolve(ctx context.Context, tryErr error, before int, since time.Time, lease, wait time.Duration, deadline time.Time) (granted, settled bool, err error) {
	cctx, cancel := l.c.cleanupContext()
	defer cancel()
	var n int
	err = retryUnknown(cctx, func(ctx context.Context) error {
		var err error
		n, err = l.view.HoldCount(ctx)
		return err
	})
	if err != nil {
		cerr := l.leave(wait)
		return false, true, fmt.Errorf("lock %q: acquire outcome unknown: %w", l.name, errors.Join(tryErr, err, cerr))
	}
	applied := n > before
	switch {
	case !applied && isServerReply(tryErr):
		// The server refused the script (READONLY, OOM, ...): known not
		// granted, and retrying at once would spin.
		return false, true, fmt.Errorf("lock %q: acquire: %w", l.name, errors.Join(tryErr, l.leave(wait)))
	case applied && ctx.Err() != nil:
		if _, uerr := l.unlockScript(cctx, lease); uerr != nil {
			// Not ErrNotObtained: the hold may still be there (a first
			// hold has no watchdog and expires within its lease).
			return false, true, fmt.Errorf("lock %q: undo of an acquire after cancellation failed: %w",
				l.name, errors.Join(ctx.Err(), uerr))
		}
		return false, true, errors.Join(ErrNotObtained, ctx.Err())
	case applied:
		if err := l.hold.granted(l.c, since, lease, n, l.view.renew); err != nil {
			return false, true, err
		}
		return true, true, nil
	case ctx.Err() != nil:
		if cerr := l.leave(wait); cerr != nil {
			return false, true, l.leaveFailed(ctx, errors.Join(tryErr, ctx.Err()), cerr)
		}
		return false, true, errInFlight(l.name, tryErr, ctx.Err())
	case !deadline.IsZero() && !time.Now().Before(deadline):
		if cerr := l.leave(wait); cerr != nil {
			return false, true, l.leaveFailed(ctx, tryErr, cerr)
		}
		return false, true, nil
	}
	return false, false, nil
}

// leaveFailed is the error of a request that gave up (err) but whose queue
// entry may remain because leave failed (cerr). It never wraps
// ErrNotObtained, which promises that nothing was left behind: the entry
// delays the waiters behind it until its deadline.
func (l *FairLock) leaveFailed(ctx context.Context, err, cerr error) error {
	if errors.Is(err, ErrNotObtained) {
		err = ctx.Err()
	}
	return fmt.Errorf("lock %q: gave up, but the queue entry may remain: %w", l.name, errors.Join(err, cerr))
}

// leave runs the acquire-failed script on a fresh bounded context; when the
// lock is free it also wakes the head waiter, since an unlock may have woken
// this caller, who no longer takes the lock. It is idempotent, so it is
// repeated until it answers or the context ends.
func (l *FairLock) leave(wait time.Duration) error {
	cctx, cancel := l.c.cleanupContext()
	defer cancel()
	keys := []string{l.keys[1], l.keys[2], l.name, l.keys[3]}
	return retryUnknown(cctx, func(ctx context.Context) error {
		return fairAcquireFailed.Run(ctx, l.c.rdb, keys, l.field, millis(wait), unlockMessage, publishCommand).Err()
	})
}

// retryUnknown runs an idempotent call until it gets a reply (nil or a
// server error) or ctx ends, backing off from 10 to 100 ms.
func retryUnknown(ctx context.Context, call func(ctx context.Context) error) error {
	for attempt := 1; ; attempt++ {
		err := call(ctx)
		if err == nil || isServerReply(err) || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(min(time.Duration(attempt)*10*time.Millisecond, 100*time.Millisecond)):
		}
	}
}

// Unlock releases one hold; the final one wakes the head waiter. It returns
// an error wrapping ErrNotOwner when this owner holds nothing (it never
// locked, or its lease ran out). An error other than ErrNotOwner means the
// outcome is unknown; renewal is stopped either way.
func (l *FairLock) Unlock(ctx context.Context) error {
	return l.c.releaseHold(ctx, &l.hold, l.name, l.field, l.unlockScript)
}

func (l *FairLock) unlockScript(ctx context.Context, lease time.Duration) (int64, error) {
	leaseArg := millis(l.leaseOrWatchdog(lease))
	keys := []string{l.name, l.keys[1], l.keys[2], ChannelName(l.name), ""}
	return l.c.unlockWithLatch(ctx, l.name, func(ctx context.Context, latch string) (int64, error) {
		keys[4] = latch
		return fairUnlock.Run(ctx, l.c.scripter(false), keys, unlockMessage, leaseArg, l.field,
			l.c.opts.clock.Now().UnixMilli(), publishCommand, l.c.latchTTLMillis()).Int64()
	})
}

// ForceUnlock deletes the lock whoever holds it and wakes the head waiter;
// it reports whether the lock existed. The queue stays. This handle's
// renewal stops.
func (l *FairLock) ForceUnlock(ctx context.Context) (bool, error) {
	if err := l.c.usable(); err != nil {
		return false, err
	}
	l.hold.abandon()
	keys := []string{l.name, l.keys[1], l.keys[2], ChannelName(l.name)}
	n, err := fairForceUnlock.Run(ctx, l.c.rdb, keys, unlockMessage, l.c.opts.clock.Now().UnixMilli(), publishCommand).Int64()
	return n == 1, err
}

// IsLocked reports whether any owner holds the lock (EXISTS).
func (l *FairLock) IsLocked(ctx context.Context) (bool, error) { return l.view.IsLocked(ctx) }

// IsHeldByMe reports whether this owner holds the lock in Redis (HEXISTS).
func (l *FairLock) IsHeldByMe(ctx context.Context) (bool, error) { return l.view.IsHeldByMe(ctx) }

// HoldCount reports this owner's hold count in Redis (HGET; 0 when none).
func (l *FairLock) HoldCount(ctx context.Context) (int, error) { return l.view.HoldCount(ctx) }

// RemainTTL reports the lock's remaining time to live (PTTL): -2 ms when the
// lock does not exist, -1 ms when it has no expiry.
func (l *FairLock) RemainTTL(ctx context.Context) (time.Duration, error) {
	return l.view.RemainTTL(ctx)
}

// Lost returns a channel closed when the current hold can no longer be
// guaranteed (as ReentrantLock.Lost). It is nil when nothing is held.
func (l *FairLock) Lost() <-chan struct{} { return l.hold.lostC() }

// Abandon stops renewal without unlocking and forgets the hold, which then
// expires within its lease.
func (l *FairLock) Abandon() { l.hold.abandon() }
