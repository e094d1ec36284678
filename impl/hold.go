package impl

import (
	"sync"
	"time"
)

// holdState is the client side of one handle's hold on a reentrant lock
// kind: the hold count it believes it has, the lease of its last grant, and
// what keeps the hold alive or reports its loss (a watchdog for lease <= 0,
// a timer for an explicit lease).
//
// How a lock kind uses it: after every grant call granted (with the count
// the script returned and the lock kind's renew script); before the unlock
// script call beforeUnlock (which stops renewal synchronously when the
// unlock is the final one); after it, released or notOwner. Lost, Abandon
// and HoldCount read it. It is safe for concurrent use, so Lost and Abandon
// may be called from other goroutines than the one locking.
type holdState struct {
	mu    sync.Mutex
	count int           // holds this handle believes it has
	lease time.Duration // lease of the last grant; <= 0: watchdog-renewed
	lost  *lostSignal   // nil while nothing is held
	wd    *watchdog     // running watchdog, if any
	timer *time.Timer   // marks lost when an explicit lease runs out
}

// granted records a grant made by a request sent at since with lease, after
// which Redis reports count holds for this owner. With lease <= 0 it makes
// sure a watchdog runs (renew is its script); otherwise, unless a watchdog
// already runs, it arms a timer that marks the hold lost when the lease can
// have run out. It returns ErrClosed when the Client is closed (the hold is
// then not renewed and expires on its own).
func (h *holdState) granted(c *Client, since time.Time, lease time.Duration, count int, renew renewFunc) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil || h.count == 0 {
		h.stopLocked()
		h.lost = newLostSignal()
	}
	h.count = count
	h.lease = lease
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	if lease <= 0 {
		if h.wd != nil {
			return nil
		}
		wd, err := c.startWatchdog(since, renew, h.lost)
		if err != nil {
			h.lost.mark()
			return err
		}
		h.wd = wd
		return nil
	}
	if h.wd == nil {
		h.timer = time.AfterFunc(time.Until(since.Add(lease)), h.lost.mark)
	}
	return nil
}

// beforeUnlock returns the lease to re-arm on a partial unlock (that of the
// last grant, Redisson's internalLockLeaseTime; <= 0: the watchdog timeout).
// When the unlock is the final one (count <= 1) it first stops renewal and
// waits for it, so no renewal can run after the unlock script.
func (h *holdState) beforeUnlock() (lease time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.count <= 1 {
		h.stopLocked()
	}
	return h.lease
}

// released records the unlock script's answer: final (the lock was deleted)
// or one hold fewer.
func (h *holdState) released(final bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if final {
		h.resetLocked()
		return
	}
	// Redis still holds more than we counted (an acquire with an unknown
	// outcome that did apply): keep at least one.
	h.count = max(h.count-1, 1)
}

// notOwner records that Redis no longer has this owner's hold.
func (h *holdState) notOwner() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost != nil {
		h.lost.mark()
	}
	h.resetLocked()
}

// abandon stops renewal without unlocking and forgets the hold; Lost of the
// abandoned hold is closed.
func (h *holdState) abandon() {
	h.notOwner()
}

// held returns the count this handle believes it holds.
func (h *holdState) held() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.count
}

// lostC returns the current hold's lost channel, or nil when nothing is held.
func (h *holdState) lostC() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost == nil {
		return nil
	}
	return h.lost.c
}

func (h *holdState) stopLocked() {
	if h.wd != nil {
		h.wd.stop()
		h.wd = nil
	}
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

func (h *holdState) resetLocked() {
	h.stopLocked()
	h.count = 0
	h.lease = 0
	h.lost = nil
}
