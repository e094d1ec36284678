package workloads

import (
	"context"
	"fmt"
	"math/rand/v2"
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
	lock := ph.lock
	if lock == "" {
		lock = w.r.plan.Locks[p.rng.IntN(len(w.r.plan.Locks))]
	}
	h := w.handle(lock)
	p.lastOp = lock
	lease := ph.hold // overrun: an explicit lease
	if ph.kind == phaseLongHold {
		lease = 0 // watchdog-renewed, held for ph.hold
	}
	o := w.acquire(h, lock, acquireHow{lease: lease, cancel: -1})
	if o.Outcome != model.OK {
		return // a lapse stays owed its long hold: the next cycle tries again
	}
	if ph.kind == phaseLongHold && lock == p.lapsed {
		p.lapsed = ""
	}
	p.held = lock
	holds := 1
	switch {
	case ph.kind == phaseLongHold:
		defer w.r.holdingLong(lock, p)()
		if !w.section(h, lock, sectionSpec{hold: ph.hold, outage: ph.outage}) {
			return
		}
	default:
		// However late the grant came, the hold ran out inside the
		// Expire window overrunTimes draws from the acquire's call and
		// return, and the late unlock follows that window. (A grant later
		// than half a lease was once made a short section instead, and a
		// busy start left whole runs without an overrun.)
		if !w.overrun(h, lock, o, ph) {
			return
		}
	}
	if w.releaseHold(h, lock, lease, &holds) {
		p.held = ""
	}
}

// overrun holds past the lease of the grant o — the holder keeps working
// while the server lets the hold run out — and records the hold's end as an
// Expire op. The late unlock that follows must fail.
func (w *worker) overrun(h impl.Locker, lock string, o model.Op, ph *phase) bool {
	r := w.r
	end, expire := overrunTimes(o, ph)
	if !w.section(h, lock, sectionSpec{hold: end - time.Duration(r.now()), overrun: true}) {
		return false
	}
	expire.Process, expire.Lock = w.p.id, lock
	r.record(expire)
	return true
}

// overrunTimes returns when the overrun of grant o ends (its late unlock is
// called) and the Expire op of its hold. The server set the lease somewhere
// inside the acquire's call, so the hold ran out inside [call, return] plus
// the lease (widened by expirySlack); the overrun ends ph.over after the
// latest of those instants, so that its unlock is late whenever the grant
// came.
func overrunTimes(o model.Op, ph *phase) (time.Duration, model.Op) {
	expire := model.Op{
		Kind: model.Expire, Outcome: model.OK,
		Call:   o.Call + int64(ph.hold-expirySlack),
		Return: o.Return + int64(ph.hold+expirySlack),
	}
	return time.Duration(expire.Return) + ph.over, expire
}

// reconnect cuts the current process's client connections for outage
// (Deps.Reconnect) and waits it out; the window is recorded as a
// "reconnect" fault, which it returns (zero without Deps.Reconnect). It
// reports false when the process crashed meanwhile.
func (w *worker) reconnect(outage time.Duration) (model.Fault, bool) {
	r := w.r
	if r.reconnect == nil {
		return model.Fault{}, w.sleep(outage, false)
	}
	client := w.clientConn()
	f := &trackedFault{t: r.tracker, Fault: faults.Func("reconnect", w.name, func(context.Context) error {
		r.reconnect(client, outage)
		return nil
	}, func(context.Context) error { return nil })}
	start := time.Now()
	_ = f.Start(context.Background())
	ok := w.sleep(outage, false)
	_ = f.Stop(context.Background())
	fw := model.Fault{Name: "reconnect", Target: w.name, Start: r.at(start), End: r.now(), Procs: r.procsOf(fmt.Sprintf("c%d", client))}
	_ = r.rec.Fault(fw)
	return fw, ok
}

// clientConn is the index of w's client connection among the run's
// (r.rdbs, the Wires, Deps.Reconnect's i).
func (w *worker) clientConn() int { return w.g.conn % len(w.r.rdbs) }

// skewedDraw draws from r with most draws near r.Min (the cube of a
// uniform): a cancellation point early in an acquire's life — before the
// request is sent, or while it is in flight — is where the outcome is in
// doubt, and it lasts only a round trip.
func skewedDraw(r Range, rng *rand.Rand) time.Duration {
	u := rng.Float64()
	return r.Min + time.Duration(u*u*u*float64(r.Max-r.Min))
}

// cancelLock is the side lock of lock on which cancelled acquires are made:
// an acquire cancelled in flight may leave a hold that runs out only with
// its lease, and on the side lock that stalls nobody but other cancelled
// acquires and the probes that watch for it.
func cancelLock(lock string) string { return lock + "~cancel" }

// cancelCycle is a cycle on lock (a side lock): half the time a blocking
// Lock whose context the process cancels CancelAfter after the call (before
// the request is sent, in flight, while it waits) or, for the plan's
// CancelAtReplyPercent of them, at the reply to its first lock command
// (which Redis has run: a grant the call may never learn of); else a
// TryLock that is not cancelled — the probe that fails, past every bound
// the model allows, when a cancelled acquire left a hold that is renewed. A granted acquire
// holds a little longer than the plan's sections, so that cancelled
// acquires often find the lock held and are cut off while they wait.
func (w *worker) cancelCycle(lock string) {
	p, plan := w.p, w.r.plan
	h := w.handle(lock)
	p.lastOp = lock
	a := acquireHow{lease: plan.Lease, cancel: -1}
	switch {
	case p.rng.IntN(2) != 0:
		a.try, a.wait = true, plan.Wait.Draw(p.rng)
	case plan.CancelAtReplyPercent > 0 && p.rng.IntN(100) < plan.CancelAtReplyPercent:
		a.atReply = true
	default:
		a.cancel = skewedDraw(plan.CancelAfter, p.rng)
	}
	if w.acquire(h, lock, a).Outcome != model.OK {
		return
	}
	p.held = lock
	holds := 1
	if w.section(h, lock, sectionSpec{hold: plan.Hold.Max + Range{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond}.Draw(p.rng)}) && w.releaseHold(h, lock, a.lease, &holds) {
		p.held = ""
	}
}
