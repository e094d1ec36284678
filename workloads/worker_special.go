package workloads

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// expirySlack widens an Expire op's window on both sides: Redis keeps
// expiry times in milliseconds and evaluates them on its own clock.
const expirySlack = 5 * time.Millisecond

// special makes the special cycle of a long-hold or overrun phase.
func (w *worker) special(ph *phase) {
	p := w.p
	lock := w.r.plan.Locks[p.rng.IntN(len(w.r.plan.Locks))]
	h := w.handle(lock)
	p.lastOp = lock
	lease := ph.hold // overrun: an explicit lease
	if ph.kind == phaseLongHold {
		lease = 0 // watchdog-renewed, held for ph.hold
	}
	o := w.acquire(h, lock, acquireHow{lease: lease, cancel: -1})
	if o.Outcome != model.OK {
		return
	}
	p.held = lock
	holds := 1
	switch {
	case ph.kind == phaseLongHold:
		if !w.section(h, lock, sectionSpec{hold: ph.hold, outage: ph.outage}) {
			return
		}
	case o.Return-o.Call >= int64(lease/2):
		// Granted late: when the server set the lease is too uncertain to
		// tell an expiry from a slow reply. A short section instead.
		if !w.section(h, lock, sectionSpec{}) {
			return
		}
	default:
		if !w.overrun(h, lock, o, ph) {
			return
		}
	}
	if w.releaseHold(h, lock, &holds) {
		p.held = ""
	}
}

// overrun holds past the lease of the grant o — the holder keeps working
// while the server lets the hold run out — and records the hold's end as an
// Expire op. The late unlock that follows must fail.
func (w *worker) overrun(h impl.Locker, lock string, o model.Op, ph *phase) bool {
	r := w.r
	end := time.Duration(o.Call) + ph.hold + ph.over
	if !w.section(h, lock, sectionSpec{hold: end - time.Duration(r.now()), overrun: true}) {
		return false
	}
	r.record(model.Op{
		Process: w.p.id, Lock: lock, Kind: model.Expire, Outcome: model.OK,
		Call:   o.Call + int64(ph.hold-expirySlack),
		Return: o.Return + int64(ph.hold+expirySlack),
	})
	return true
}

// reconnect cuts the current process's client connections for outage
// (Deps.Reconnect) and waits it out; the window is recorded as a
// "reconnect" fault. It reports false when the process crashed meanwhile.
func (w *worker) reconnect(outage time.Duration) bool {
	r := w.r
	if r.reconnect == nil {
		return w.sleep(outage, false)
	}
	client := w.slot % len(r.rdbs)
	f := &trackedFault{t: r.tracker, Fault: faults.Func("reconnect", w.name, func(context.Context) error {
		r.reconnect(client, outage)
		return nil
	}, func(context.Context) error { return nil })}
	start := time.Now()
	_ = f.Start(context.Background())
	ok := w.sleep(outage, false)
	_ = f.Stop(context.Background())
	fw := model.Fault{Name: "reconnect", Target: w.name, Start: r.at(start), End: r.now()}
	_ = r.rec.Fault(fw)
	return ok
}
