package workloads

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// A shared overrun phase (phases.go) puts readers that die holding beside a
// reader that lives: the anchor holds the read side of the plan's first
// lock under the watchdog for the whole phase, and one process after the
// other, each in its slot, takes the same side with the phase's explicit
// lease, works for half of it and crashes without unlocking; the next
// comes after that lease has run out. A dead reader's hold may last
// its lease and no longer, and must not shorten the anchor's: a lock that
// lets the latest reader's lease set the readers' shared expiry cuts the
// anchor's hold short (a writer waiting is granted inside its section),
// and one whose watchdog renews every reader's hold keeps the dead ones on
// (a writer waits on a lock no live process holds).

// readSide returns the read side of lock's handle and its mode; a lock
// with no sides (shared phases are drawn for read-write locks only) gives
// its handle and no mode.
func (w *worker) readSide(lock string) (impl.Locker, string) {
	h := w.handle(lock)
	if sd, ok := h.(impl.Sided); ok && w.r.subj.ReadWrite {
		return sd.Side(impl.ModeRead), impl.ModeRead
	}
	return h, ""
}

// anchor makes the anchor of a shared overrun phase ph: the read side of
// the plan's first lock, taken under the watchdog (a lock that renews
// nothing: an explicit lease past the phase), held until the phase ends,
// then released.
func (w *worker) anchor(ph *phase) {
	r, p := w.r, w.p
	lock := r.plan.Locks[0]
	h, mode := w.readSide(lock)
	p.lastOp = lock
	var lease time.Duration
	if r.subj.NoWatchdog {
		lease = ph.end - time.Duration(r.now()) + r.watchdogLease
	}
	if w.acquire(h, lock, acquireHow{lease: lease, cancel: -1, mode: mode}).Outcome != model.OK {
		return
	}
	p.held = lock
	if !w.section(h, lock, sectionSpec{hold: ph.end - time.Duration(r.now()), mode: mode}) {
		return
	}
	if holds := 1; w.releaseHoldMode(h, lock, mode, lease, &holds) {
		p.held = ""
	}
}

// dyingReader makes the k-th dying reader of a shared overrun phase ph,
// in its slot (phase.slot): the read side of the plan's first lock with the
// phase's explicit lease, a section of half that lease, and a crash that
// leaves the hold to run out. The phase's workers make them as they come
// free (a worker's writes wait for the anchor, and a crashed process's
// client may take a while to start again), each in its own slot, so that
// the anchor holds alone between one dead reader's lease and the next's grant.
func (w *worker) dyingReader(ph *phase, k int) {
	r, p := w.r, w.p
	if !w.sleep(ph.slot(k)-time.Duration(r.now()), true) {
		return
	}
	lock := r.plan.Locks[0]
	h, mode := w.readSide(lock)
	p.lastOp = lock
	if w.acquire(h, lock, acquireHow{lease: ph.hold, cancel: -1, mode: mode}).Outcome != model.OK {
		return // refused (a writer holds): the slot passes; else retired
	}
	p.held = lock
	if !w.section(h, lock, sectionSpec{hold: ph.hold / 2, mode: mode}) {
		return // crashed meanwhile, and retired
	}
	w.retire(true, false)
}
