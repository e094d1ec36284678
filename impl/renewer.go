package impl

import (
	"context"
	"sync"
	"time"
)

// renewer is a Client's one renewal scheduler for all its watchdog-renewed
// holds (Redisson's design: one renewal task per client, not a thread per
// hold). Taking and releasing a hold costs a map insert and delete under a
// mutex: no goroutine, timer or context per hold. The scheduler goroutine
// sleeps until the earliest renewal is due, starts every due renewal in a
// goroutine of its own (a slow renewal delays no other hold), and exits
// when no hold is left for one renewal period or the Client closes. Every
// goroutine it starts is waited for by close. Renewals (renewals.go) is
// the same scheduler for the lock packages outside impl.
type renewer struct {
	timeout time.Duration // the watchdog timeout: the lease a renewal sets
	clock   Clock         // judges whether a lease ran out (watchdog.validUntil)

	mu      sync.Mutex
	holds   map[*watchdog]struct{}
	closed  bool
	running bool          // the scheduler goroutine runs
	next    time.Time     // when the scheduler wakes next (zero: idle or not running)
	kick    chan struct{} // capacity 1: wake the scheduler to look again
	wg      sync.WaitGroup
}

func newRenewer(timeout time.Duration, clock Clock) *renewer {
	return &renewer{timeout: timeout, clock: clock, holds: make(map[*watchdog]struct{}), kick: make(chan struct{}, 1)}
}

func (r *renewer) period() time.Duration { return r.timeout / 3 }
func (r *renewer) retry() time.Duration  { return max(r.timeout/12, time.Millisecond) }

// add starts renewing a hold granted by a request sent at since, with the
// renewer's timeout, period and retry.
func (r *renewer) add(since time.Time, renew renewFunc, lost *lostSignal) (*watchdog, error) {
	return r.addWith(since, renew, lost, watchdogTiming{timeout: r.timeout, period: r.period(), retry: r.retry()})
}

// addWith is add with a timing of the hold's own.
func (r *renewer) addWith(since time.Time, renew renewFunc, lost *lostSignal, t watchdogTiming) (*watchdog, error) {
	sent := r.clock.Now().Add(-time.Since(since)) // since, on the lease clock
	w := &watchdog{r: r, renew: renew, lost: lost, t: t, due: since.Add(t.period), validUntil: sent.Add(t.timeout)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	r.holds[w] = struct{}{}
	if !r.running {
		r.running = true
		r.next = time.Time{}
		r.wg.Add(1)
		go r.loop()
	}
	r.kickLocked(w.due)
	return w, nil
}

// kickLocked wakes the scheduler if due is earlier than its next wake-up.
func (r *renewer) kickLocked(due time.Time) {
	if !r.next.IsZero() && r.next.Before(due) {
		return
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// loop is the scheduler: it starts due renewals and sleeps until the next.
func (r *renewer) loop() {
	defer r.wg.Done()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		r.mu.Lock()
		if r.closed {
			r.running = false
			r.mu.Unlock()
			return
		}
		next := r.startDueLocked(time.Now())
		if next.IsZero() {
			next = time.Now().Add(r.period()) // idle: linger one period
		}
		r.next = next
		r.mu.Unlock()
		timer.Reset(time.Until(next))
		select {
		case <-r.kick:
			continue
		case <-timer.C:
		}
		r.mu.Lock()
		if len(r.holds) == 0 && len(r.kick) == 0 {
			r.running = false
			r.next = time.Time{}
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
	}
}

// startDueLocked starts the renewal of every hold due by now and returns
// the earliest due time of the others (zero: none waits).
func (r *renewer) startDueLocked(now time.Time) time.Time {
	var next time.Time
	for w := range r.holds {
		switch {
		case w.inflight != nil:
		case !w.due.After(now):
			sent := r.clock.Now()
			left := w.validUntil.Sub(sent)
			if left <= 0 {
				left = w.t.period // already lost: keep trying, bounded
			}
			if w.t.wait > 0 {
				left = min(left, w.t.wait)
			}
			ctx, cancel := context.WithDeadline(context.Background(), now.Add(left))
			w.inflight, w.cancel = make(chan struct{}), cancel
			r.wg.Add(1)
			go r.renewOnce(ctx, w, now, sent)
		case next.IsZero() || w.due.Before(next):
			next = w.due
		}
	}
	return next
}

// close stops every watchdog (renewals in flight are cancelled and waited
// for), marks their holds lost and waits for the scheduler. Idempotent.
func (r *renewer) close() {
	r.mu.Lock()
	r.closed = true
	var stopped []*watchdog
	var inflight []<-chan struct{}
	for w := range r.holds {
		if done := w.stopLocked(); done != nil {
			inflight = append(inflight, done)
		}
		stopped = append(stopped, w)
	}
	select {
	case r.kick <- struct{}{}:
	default:
	}
	r.mu.Unlock()
	for _, done := range inflight {
		<-done
	}
	for _, w := range stopped {
		w.lost.mark()
	}
	r.wg.Wait()
}
