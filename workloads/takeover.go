package workloads

import (
	"sync/atomic"
	"time"
)

// A takeover is the first grant of a lock to a process while another
// process's long hold of it (the special cycle of a long-hold phase) is
// still in its section: a grant a correct lock never makes, since its
// watchdog keeps the long hold through the phase's outage. The long hold
// ran out under its holder, and its client may have kept state from it (a
// renewal entry that a failed renewal left behind, shared by every thread
// of the client). The taker's hold is made a long one, longer than a
// watchdog lease (takeoverHold), so that its own renewals must keep it and
// whatever the lapse left in a client shows on the hold that follows it:
// in the history as a hold that runs out under the taker too.
//
// Whatever a lapse leaves in a client is shared by the client's threads
// alone, so a plan may have them wait on the long hold
// (Phases.SiblingsWait): while it is in its section, the other owners of
// the holder's client process make their cycles on its lock, and the
// owners of other client processes on the plan's other locks, so that the
// takeover, if one comes, is a sibling's. (Left to their draws, owners
// that make blocking calls all end up waiting on the long hold's lock,
// and the takeover goes to whichever client's waiter polls first.)

// longHold is a long hold in its section: the lock, the holder's process
// id and client process (0: owners not grouped), and whether a grant to
// another process took it over already.
type longHold struct {
	lock   string
	holder int
	client int
	taken  atomic.Bool
}

// holdingLong records that process p's long hold of lock is in its
// section, until the returned func is called.
func (r *runner) holdingLong(lock string, p *process) (done func()) {
	lh := &longHold{lock: lock, holder: p.id, client: p.client}
	r.long.Store(lh)
	return func() { r.long.CompareAndSwap(lh, nil) }
}

// lockOf is the lock of a cycle whose draw is plan.Locks[i]: during a long
// hold in its section, when the plan has siblings wait on it
// (Phases.SiblingsWait) and no grant took it over yet, the long hold's lock
// for another owner of the holder's client process, and for an owner of
// another client process the next lock of the plan's after the one drawn
// when that is the long hold's; else the lock drawn.
func (r *runner) lockOf(p *process, i int) string {
	locks := r.plan.Locks
	lock, ph, lh := locks[i], r.plan.Phases, r.long.Load()
	if ph == nil || !ph.SiblingsWait || lh == nil || lh.client == 0 || lh.holder == p.id || lh.taken.Load() {
		return lock
	}
	switch {
	case lh.client == p.client:
		return lh.lock
	case lock == lh.lock:
		return locks[(i+1)%len(locks)]
	}
	return lock
}

// takeover reports whether a grant of lock to process pid, a watchdog hold
// (lease <= 0), is the takeover of the long hold in its section: the
// first grant of that lock to another process since the long hold began.
func (r *runner) takeover(lock string, pid int, lease time.Duration) bool {
	lh := r.long.Load()
	return lease <= 0 && lh != nil && lh.lock == lock && lh.holder != pid && lh.taken.CompareAndSwap(false, true)
}

// takeoverHold is how long a takeover's hold lasts: the plan's shortest
// long hold (no draw from the process's seed, so that a run where no long
// hold runs out draws what it always drew), cut at the run's end (where
// the run stops and no op starts), but never shorter than drawn, the hold
// the process drew.
func (r *runner) takeoverHold(drawn time.Duration) time.Duration {
	long := time.Duration(r.plan.Phases.LongHold.Min * float64(r.watchdogLease))
	left := r.cfg.Duration - time.Duration(r.now())
	return max(drawn, min(long, left))
}
