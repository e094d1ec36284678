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

// waitOutcome is how waitAcquire ended.
type waitOutcome int

const (
	// waitTimedOut: wait ran out while another held the lock (no error).
	waitTimedOut waitOutcome = iota
	// waitAcquired: the last attempt was granted (no error).
	waitAcquired
	// waitStopped: ctx ended (the error wraps ErrNotObtained and
	// ctx.Err()), the Client closed (ErrClosed) or subscribing failed, with
	// no attempt in flight: nothing to undo.
	waitStopped
	// waitUncertain: the last attempt failed with an unknown outcome (the
	// error is its error; ctx may have ended during it). The lock kind must
	// resolve or undo it on a fresh context (Client.cleanupContext), or, for
	// the fair lock, remove its queue entry.
	waitUncertain
)

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
// The error is nil exactly when the outcome is waitAcquired or waitTimedOut;
// see waitOutcome for the others.
func (c *Client) waitAcquire(ctx context.Context, channel string, wait time.Duration, cr *crowd, try attemptFunc) (out waitOutcome, err error) {
	w := c.newWaiter(channel, wait, cr)
	defer w.close()
	defer func() {
		if err == nil {
			cr.done(time.Since(w.start), w.lost)
		}
	}()
	for {
		if ctx.Err() != nil {
			return waitStopped, errors.Join(ErrNotObtained, ctx.Err())
		}
		w.drain()
		ok, ttl, err := try(ctx)
		if err != nil {
			return waitUncertain, err
		}
		if ok {
			return waitAcquired, nil
		}
		if w.woken {
			w.lost++
		}
		sleep, ok := w.sleepFor(ttl)
		if !ok {
			return waitTimedOut, nil
		}
		if err := w.sleep(ctx, sleep); err != nil {
			return waitStopped, err
		}
	}
}

// waiter is the state of one waitAcquire call between its attempts.
type waiter struct {
	c        *Client
	channel  string
	cr       *crowd
	start    time.Time
	deadline time.Time     // zero: wait until ctx ends
	listenAt time.Duration // the crowd's plan: poll until this age
	period   time.Duration // mean poll period
	sub      *subscription // made on the first listen
	timer    *time.Timer   // made on first use
	woken    bool          // the next attempt answers a wake-up
	lost     int           // attempts after wake-ups that failed
}

func (c *Client) newWaiter(channel string, wait time.Duration, cr *crowd) *waiter {
	w := &waiter{c: c, channel: channel, cr: cr, start: time.Now()}
	if wait >= 0 {
		w.deadline = w.start.Add(wait)
	}
	w.listenAt, w.period = cr.plan()
	return w
}

// close leaves no subscription or timer behind.
func (w *waiter) close() {
	if w.sub != nil {
		w.sub.close()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
}

// drain drops a wake-up that arrived before the attempt about to run: that
// attempt answers it.
func (w *waiter) drain() {
	if w.sub == nil {
		return
	}
	select {
	case <-w.sub.wakeC():
	default:
	}
}

// sleepFor returns how long to sleep after a failed attempt that saw ttl
// (< 0: unknown, the watchdog timeout), within what is left of wait and at
// least minWait; false when wait has run out.
func (w *waiter) sleepFor(ttl time.Duration) (time.Duration, bool) {
	sleep := ttl
	if ttl < 0 {
		sleep = w.c.opts.watchdogTimeout
	}
	if !w.deadline.IsZero() {
		left := time.Until(w.deadline)
		if left <= 0 {
			return 0, false
		}
		sleep = min(sleep, left)
	}
	return max(sleep, minWait), true
}

// sleep waits before the next attempt: polls while the call is younger
// than the crowd's listenAt, else listens for a wake-up at most sleep and,
// after a wake-up on a crowded channel, backs off. It returns ctx's end
// (wrapping ErrNotObtained), ErrClosed or a failure to subscribe.
func (w *waiter) sleep(ctx context.Context, sleep time.Duration) error {
	if age := time.Since(w.start); age < w.listenAt {
		return w.c.poll(ctx, &w.timer, min(sleep, w.c.herd.period(w.period), w.listenAt-age))
	}
	if err := w.listen(ctx, sleep); err != nil {
		return err
	}
	if !w.woken || w.cr == nil {
		return nil
	}
	return w.backoff(ctx)
}

// listen subscribes on first use and waits for a wake-up or sleep.
func (w *waiter) listen(ctx context.Context, sleep time.Duration) error {
	if w.sub == nil {
		sub, err := w.c.hub.subscribe(w.channel)
		if err != nil {
			return err
		}
		w.sub = sub
	}
	if w.timer == nil {
		w.timer = time.NewTimer(sleep)
	} else {
		w.timer.Reset(sleep)
	}
	w.woken = false
	select {
	case <-w.sub.wakeC():
		w.woken = true
	case <-w.timer.C:
	case <-ctx.Done():
		return errors.Join(ErrNotObtained, ctx.Err())
	case <-w.c.closing:
		return ErrClosed
	}
	return nil
}

// backoff waits the herd's random delay after a wake-up (within wait), so
// that the waiters a wake-up reached do not all try at once.
func (w *waiter) backoff(ctx context.Context) error {
	d := w.c.herd.delay(w.lost, time.Since(w.start))
	if !w.deadline.IsZero() {
		d = min(d, time.Until(w.deadline))
	}
	if d <= 0 {
		return nil
	}
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
		return nil
	case <-ctx.Done():
		return errors.Join(ErrNotObtained, ctx.Err())
	case <-w.c.closing:
		return ErrClosed
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

// ctxEnded is ctx's error, or context.DeadlineExceeded once its deadline
// has passed though its timer has not fired yet: a socket deadline taken
// from ctx can run out first (a write timing out on a loaded machine), and
// the acquire must then read as the caller's cancellation, not as an
// outcome of its own.
func ctxEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d, ok := ctx.Deadline(); ok && !time.Now().Before(d) {
		return context.DeadlineExceeded
	}
	return nil
}
