package impl

import (
	"context"
	"sync"
	"time"
)

// renewFunc renews one hold once, with an owner check in Lua. It reports
// false with a nil error when the hold is gone from Redis; an error means
// the outcome is unknown and the watchdog tries again.
type renewFunc func(ctx context.Context) (held bool, err error)

// lostSignal is a channel closed once, when a hold can no longer be
// guaranteed.
type lostSignal struct {
	once sync.Once
	c    chan struct{}
}

func newLostSignal() *lostSignal { return &lostSignal{c: make(chan struct{})} }

func (l *lostSignal) mark() { l.once.Do(func() { close(l.c) }) }

// watchdog keeps one hold alive: every timeout/3 the Client's renewer
// (renewer.go, one scheduler for all the Client's holds, as Redisson's
// LockTask) runs renew, which PEXPIREs the lock to timeout if this owner
// still holds it.
//
// How a lock kind uses it: start it (Client.startWatchdog) after a grant
// with lease <= 0, passing its own owner-checked renew script and the time
// the granting request was sent; stop it synchronously before the final
// unlock script runs (stop cancels a renewal in flight and waits for it, so
// no renewal can follow the unlock, unlike Redisson #7272). holdState does
// both for a lock kind.
//
// Guarantees: after an error the renewal is retried (every timeout/12) until
// it succeeds, the hold is reported gone, or stop; lost is marked when renew
// reports the hold gone (renewal then ends) or when no renewal succeeded
// within timeout of the last successful one (renewal still goes on, in case
// the hold survived, but lost stays marked); Client.Close stops every
// watchdog and marks its hold lost. That is a Client's timing; a hold
// of Renewals (the mutants, the Go peers) has its own (watchdogTiming):
// another period, retry and reply wait, and it may end at its first failed
// renewal (giveUp) or once lost (stopWhenLost).
type watchdog struct {
	r     *renewer
	renew renewFunc
	lost  *lostSignal
	t     watchdogTiming

	// Guarded by r.mu.
	due        time.Time          // when the next renewal is due
	validUntil time.Time          // the hold is guaranteed until then, on the renewer's clock
	stopped    bool               // stop was called, or the hold is gone
	inflight   chan struct{}      // non-nil while a renewal runs; closed at its end
	cancel     context.CancelFunc // cancels the renewal in flight
}

// watchdogTiming is how one watchdog renews: a Client's watchdogs all
// have its renewer's; a mutant's or a peer's (Renewals) its own.
type watchdogTiming struct {
	timeout time.Duration // the lease a renewal sets
	period  time.Duration // from a renewal's request to the next
	retry   time.Duration // from a failed renewal to the next
	wait    time.Duration // > 0: bounds a renewal's wait for its reply (else the lease left)
	// retryFromSent counts retry from the failed renewal's request (as a
	// ticker does), else from its failure.
	retryFromSent bool
	// giveUp ends the renewal at the first failed one (marking lost);
	// stopWhenLost ends it once no renewal succeeded within timeout.
	giveUp, stopWhenLost bool
}

// startWatchdog starts renewing a hold granted by a request sent at since.
// It returns ErrClosed when the Client is closed.
func (c *Client) startWatchdog(since time.Time, renew renewFunc, lost *lostSignal) (*watchdog, error) {
	return c.renewals.add(since, renew, lost)
}

// stop ends the renewal, waiting for one in flight to return, so that no
// renewal runs after stop returns. It does not unlock. It is idempotent and
// safe for concurrent use.
func (w *watchdog) stop() {
	r := w.r
	r.mu.Lock()
	done := w.stopLocked()
	r.mu.Unlock()
	if done != nil {
		<-done
	}
}

// stopLocked marks w stopped, removes it from the renewer and cancels a
// renewal in flight, whose end the returned channel (nil: none) reports.
func (w *watchdog) stopLocked() <-chan struct{} {
	w.stopped = true
	delete(w.r.holds, w)
	if w.inflight != nil {
		w.cancel()
	}
	return w.inflight
}

// renewOnce runs one renewal of w sent at sent (bounded by ctx; leaseSent
// is the same moment on the renewer's clock) and schedules the next one
// from its answer.
func (r *renewer) renewOnce(ctx context.Context, w *watchdog, sent, leaseSent time.Time) {
	defer r.wg.Done()
	held, err := w.renew(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	w.cancel()
	close(w.inflight)
	w.inflight, w.cancel = nil, nil
	if w.stopped {
		return
	}
	switch {
	case (err != nil && w.t.giveUp) || (err == nil && !held):
		w.lost.mark()
		w.stopLocked()
		return
	case err != nil && w.t.retryFromSent:
		w.due = sent.Add(w.t.retry)
	case err != nil:
		w.due = time.Now().Add(w.t.retry)
	default:
		w.validUntil = leaseSent.Add(w.t.timeout)
		w.due = sent.Add(w.t.period)
	}
	if !r.clock.Now().Before(w.validUntil) {
		w.lost.mark()
		if w.t.stopWhenLost {
			w.stopLocked()
			return
		}
	}
	r.kickLocked(w.due)
}
