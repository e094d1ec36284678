package impl

import (
	"context"
	"time"
)

// Renewals is the renewal scheduler of lock packages outside impl (the
// mutants, the Go peers): a Client's renewer (renewer.go), whose holds each
// renew on a RenewalConfig of their own. It has the renewer's guarantees:
// one scheduler goroutine while any hold is renewed, each renewal in a
// goroutine of its own, no renewal after Renewal.Stop returns, and Close
// stops and waits for them all.
type Renewals struct{ r *renewer }

// RenewalConfig is how one hold renews. A lock package's flaws are
// configurations: a watchdog that renews too late (Period), one that gives
// up at its first failed renewal (GiveUp).
type RenewalConfig struct {
	// Lease is what each renewal sets; a renewal is due every Lease/3.
	Lease time.Duration
	// Period, when > 0, is the time from a renewal's request to the next
	// instead of Lease/3.
	Period time.Duration
	// Retry, when > 0, is the time from a failed renewal's request to the
	// next, at once when that is past (default Lease/12).
	Retry time.Duration
	// Wait, when > 0, bounds each renewal's wait for its reply (default:
	// until the lease it renews would run out).
	Wait time.Duration
	// GiveUp ends the renewal at the first failed one.
	GiveUp bool
	// StopWhenLost ends the renewal once no renewal succeeded within a
	// Lease (else it goes on, in case the hold survived).
	StopWhenLost bool
}

func (c RenewalConfig) timing() watchdogTiming {
	t := watchdogTiming{timeout: c.Lease, period: c.Period, retry: c.Retry, wait: c.Wait, retryFromSent: true, giveUp: c.GiveUp, stopWhenLost: c.StopWhenLost}
	if t.period <= 0 {
		t.period = max(c.Lease/3, time.Millisecond)
	}
	if t.retry <= 0 {
		t.retry = max(c.Lease/12, time.Millisecond)
	}
	return t
}

// NewRenewals returns a scheduler on the real clock; idle lingers one
// third of lease before its goroutine exits.
func NewRenewals(lease time.Duration) *Renewals {
	return &Renewals{r: newRenewer(max(lease, 3*time.Millisecond), RealClock)}
}

// Start renews a hold granted by a request sent at since, by calling
// renew, which reports false with a nil error when the hold is gone from
// Redis (the renewal ends) and an error when the outcome is unknown. It
// returns ErrClosed once Close began.
func (rs *Renewals) Start(since time.Time, c RenewalConfig, renew func(ctx context.Context) (held bool, err error)) (*Renewal, error) {
	lost := newLostSignal()
	w, err := rs.r.addWith(since, renew, lost, c.timing())
	if err != nil {
		return nil, err
	}
	return &Renewal{w: w, lost: lost}, nil
}

// Close stops every renewal, waits for them, and marks their holds lost.
// It is idempotent.
func (rs *Renewals) Close() { rs.r.close() }

// Renewal is one hold's renewal. A nil *Renewal is a renewal that ended.
type Renewal struct {
	w    *watchdog
	lost *lostSignal
}

// Stop ends the renewal, waiting for one in flight, so that none runs
// after Stop returns. It does not unlock. Idempotent; safe on nil.
func (h *Renewal) Stop() {
	if h != nil {
		h.w.stop()
	}
}

// Alive reports whether the hold is still renewed: not stopped, not gone,
// not given up, not closed. False on nil.
func (h *Renewal) Alive() bool {
	if h == nil {
		return false
	}
	h.w.r.mu.Lock()
	defer h.w.r.mu.Unlock()
	return !h.w.stopped && !h.w.r.closed
}

// Lost is closed once the hold can no longer be guaranteed: it is gone,
// a renewal gave up, none succeeded within a Lease, or Close; nil on nil.
func (h *Renewal) Lost() <-chan struct{} {
	if h == nil {
		return nil
	}
	return h.lost.c
}
