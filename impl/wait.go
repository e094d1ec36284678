package impl

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// attemptFunc makes one acquire attempt for waitAcquire. It reports whether
// the lock was granted; if not, ttl is how long the current holder's lease
// (or, for the fair lock, the wait ahead in the queue) still runs: ttl < 0
// means unknown or no expiry. An error means the attempt's outcome is
// unknown (the script may have run).
type attemptFunc func(ctx context.Context) (acquired bool, ttl time.Duration, err error)

// minWait is the shortest sleep between attempts, so a ttl of 0 (a lease
// about to run out) cannot turn the loop into a busy poll.
const minWait = time.Millisecond

// waitAcquire is Redisson's waiting algorithm, shared by the lock kinds.
//
// How a lock kind uses it: it passes the channel its holders publish on when
// they release (ChannelName(name) for reentrant and fenced locks, the
// per-waiter channel for the fair lock) and an attempt that runs its acquire
// script once. waitAcquire tries once; if the lock is held and wait allows,
// it subscribes (through the Client's hub) and then sleeps until an unlock
// message, a (re)subscription, the holder's ttl or the end of wait, whichever
// comes first, and tries again. wait < 0 waits until ctx ends; wait == 0
// makes exactly one attempt. No subscription is left behind when it returns.
// A wake-up that arrived before an attempt is answered by that attempt (it
// does not cause another one). With a crowd (a channel shared by all
// waiters; the handle's memory of its previous calls), a waiter whose
// attempts after wake-ups keep failing waits a random delay before the next
// one (herd.go), and a call on a lock found crowded polls before it listens
// (crowd.go).
//
// It returns acquired, or:
//   - (false, false, nil): wait ran out while the lock was held by another;
//   - (false, false, err): ctx ended (err wraps ErrNotObtained and
//     ctx.Err()) or the Client closed (ErrClosed), with no attempt in flight;
//   - (false, true, err): the last attempt failed with an unknown outcome
//     (err is its error; ctx may have ended during it). The lock kind must
//     resolve or undo it on a fresh context (Client.cleanupContext), or, for
//     the fair lock, remove its queue entry.
func (c *Client) waitAcquire(ctx context.Context, channel string, wait time.Duration, cr *crowd, try attemptFunc) (acquired, uncertain bool, err error) {
	start := time.Now()
	var deadline time.Time
	if wait >= 0 {
		deadline = start.Add(wait)
	}
	listenAt, period := cr.plan()
	var sub *subscription
	defer func() {
		if sub != nil {
			sub.close()
		}
	}()
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	woken := false // the next attempt answers a wake-up
	lost := 0      // attempts after wake-ups that failed
	defer func() {
		if err == nil && !uncertain {
			cr.done(time.Since(start), lost)
		}
	}()
	for {
		if ctx.Err() != nil {
			return false, false, errors.Join(ErrNotObtained, ctx.Err())
		}
		if sub != nil {
			select {
			case <-sub.wakeC():
			default:
			}
		}
		ok, ttl, err := try(ctx)
		if err != nil {
			return false, true, err
		}
		if ok {
			return true, false, nil
		}
		if woken {
			lost++
		}
		sleep := ttl
		if ttl < 0 {
			sleep = c.opts.watchdogTimeout
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return false, false, nil
			}
			sleep = min(sleep, left)
		}
		sleep = max(sleep, minWait)
		if age := time.Since(start); age < listenAt {
			if err := c.poll(ctx, &timer, min(sleep, c.herd.period(period), listenAt-age)); err != nil {
				return false, false, err
			}
			continue
		}
		if sub == nil {
			if sub, err = c.hub.subscribe(channel); err != nil {
				return false, false, err
			}
		}
		if timer == nil {
			timer = time.NewTimer(sleep)
		} else {
			timer.Reset(sleep)
		}
		woken = false
		select {
		case <-sub.wakeC():
			woken = true
		case <-timer.C:
		case <-ctx.Done():
			return false, false, errors.Join(ErrNotObtained, ctx.Err())
		case <-c.closing:
			return false, false, ErrClosed
		}
		if !woken || cr == nil {
			continue
		}
		d := c.herd.delay(lost, time.Since(start))
		if !deadline.IsZero() {
			d = min(d, time.Until(deadline))
		}
		if d <= 0 {
			continue
		}
		timer.Reset(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
			return false, false, errors.Join(ErrNotObtained, ctx.Err())
		case <-c.closing:
			return false, false, ErrClosed
		}
	}
}

// poll sleeps d on *timer (made on first use) before a polling attempt. It
// returns ctx's end (wrapping ErrNotObtained) or ErrClosed.
func (c *Client) poll(ctx context.Context, timer **time.Timer, d time.Duration) error {
	if *timer == nil {
		*timer = time.NewTimer(d)
	} else {
		(*timer).Reset(d)
	}
	select {
	case <-(*timer).C:
		return nil
	case <-ctx.Done():
		return errors.Join(ErrNotObtained, ctx.Err())
	case <-c.closing:
		return ErrClosed
	}
}

// errInFlight is the error of an acquire whose ctx ended while its script
// was on its way and that a read on another connection found not applied:
// the script may still run after that read (Redis orders requests per
// connection, not across them), so the outcome is unknown and the error
// does not wrap ErrNotObtained. A hold taken that way is a first hold
// without a watchdog: it expires within its lease. Found by lockcheck's
// hunt workload, whose cancellations land mid-request: the caller, told
// ErrNotObtained, acquired again and re-entered the hold it had been told
// it did not have.
func errInFlight(lock string, tryErr, ctxErr error) error {
	return fmt.Errorf("lock %q: %w: %w", lock, errCancelledInFlight, errors.Join(tryErr, ctxErr))
}

var errCancelledInFlight = errors.New("acquire cancelled with its request in flight: outcome unknown")
