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

// watchdog keeps one hold alive: every timeout/3 it runs renew, which
// PEXPIREs the lock to timeout if this owner still holds it (Redisson's
// LockTask, one goroutine per hold instead of one per client).
//
// How a lock kind uses it: start it (Client.startWatchdog) after a grant
// with lease <= 0, passing its own owner-checked renew script and the time
// the granting request was sent; stop it synchronously before the final
// unlock script runs (stop waits for the goroutine, so no renewal can follow
// the unlock, unlike Redisson #7272). holdState does both for a lock kind.
//
// Guarantees: after an error the renewal is retried (every timeout/12) until
// it succeeds, the hold is reported gone, or stop; lost is marked when renew
// reports the hold gone (the watchdog then exits) or when no renewal succeeded
// within timeout of the last successful one (renewal still goes on, in case
// the hold survived, but lost stays marked).
type watchdog struct {
	c      *Client
	lost   *lostSignal
	cancel context.CancelFunc
	done   chan struct{}
}

// startWatchdog starts a watchdog for a hold granted by a request sent at
// since. It returns ErrClosed when the Client is closed.
func (c *Client) startWatchdog(since time.Time, renew renewFunc, lost *lostSignal) (*watchdog, error) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchdog{c: c, lost: lost, cancel: cancel, done: make(chan struct{})}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		cancel()
		return nil, ErrClosed
	}
	c.watchdogs[w] = struct{}{}
	c.mu.Unlock()
	go w.run(ctx, since, c.opts.watchdogTimeout, renew, lost)
	return w, nil
}

// stop ends the renewal and waits for the goroutine to exit. It does not
// unlock. It is idempotent and safe for concurrent use.
func (w *watchdog) stop() {
	w.cancel()
	<-w.done
	w.c.mu.Lock()
	delete(w.c.watchdogs, w)
	w.c.mu.Unlock()
}

func (w *watchdog) run(ctx context.Context, since time.Time, timeout time.Duration, renew renewFunc, lost *lostSignal) {
	defer close(w.done)
	period := timeout / 3
	retry := max(timeout/12, time.Millisecond)
	validUntil := since.Add(timeout) // the hold is guaranteed until then
	timer := time.NewTimer(period)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		sent := time.Now()
		bound := validUntil
		if !bound.After(sent) {
			bound = sent.Add(period) // already lost: keep trying, bounded
		}
		rctx, cancel := context.WithDeadline(ctx, bound)
		held, err := renew(rctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		next := period
		switch {
		case err != nil:
			next = retry
		case !held:
			lost.mark()
			return
		default:
			validUntil = sent.Add(timeout)
		}
		if !time.Now().Before(validUntil) {
			lost.mark()
		}
		timer.Reset(next)
	}
}
