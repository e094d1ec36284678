package workloads

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// Default shares of a read-write lock's cycles, for a plan that sets
// neither (Plan.withSides).
const (
	defaultReadPercent      = 50
	defaultDowngradePercent = 25
)

// withSides fits p's read and downgrade shares to the subject: a
// read-write lock gets the default shares when p sets neither; any other
// lock none, so that the plan a run records says what it did.
func (p Plan) withSides(readWrite bool) Plan {
	switch {
	case !readWrite:
		p.ReadPercent, p.DowngradePercent = 0, 0
	case p.ReadPercent == 0 && p.DowngradePercent == 0:
		p.ReadPercent, p.DowngradePercent = defaultReadPercent, defaultDowngradePercent
	}
	return p
}

// rwCycle is cycle on a read-write lock: one side drawn by the plan's
// read share; a write cycle may downgrade (take the read side while it
// writes, release the write side, read under the read side alone). Every
// op and section records its side.
func (w *worker) rwCycle(sd impl.Sided, lock string, storm bool) {
	p, plan := w.p, w.r.plan
	mode := impl.ModeWrite
	if p.rng.IntN(100) < plan.ReadPercent {
		mode = impl.ModeRead
	}
	h := sd.Side(mode)
	if plan.StrayUnlockPercent > 0 && p.rng.IntN(100) < plan.StrayUnlockPercent {
		if p.rng.IntN(2) == 0 {
			lock = lock + "~free" // a lock no one takes: the unlock meets no key
			h = w.handle(lock).(impl.Sided).Side(mode)
		}
		w.releaseMode(h, lock, mode, true) // held by no one here: it must fail
		return
	}
	a := w.drawAcquire(storm)
	a.mode = mode
	if w.acquire(h, lock, a).Outcome != model.OK {
		return // fail: try again; info: retired
	}
	p.held = lock
	holds, ok := w.reenter(h, lock, mode, storm)
	if !ok {
		return
	}
	if mode == impl.ModeWrite && !storm && p.rng.IntN(100) < plan.DowngradePercent {
		if w.downgrade(sd, h, lock, holds) {
			p.held = ""
		}
		return
	}
	if w.sectionsAndReleases(h, lock, mode, holds, storm) {
		p.held = ""
	}
}

// reenter takes up to MaxReentry more holds of mode's side; it returns the
// holds then held, and false when the process was retired or crashed.
func (w *worker) reenter(h impl.Locker, lock, mode string, storm bool) (int, bool) {
	p, plan := w.p, w.r.plan
	holds := 1
	if !w.r.subj.Reentrant || plan.MaxReentry == 0 || storm {
		return holds, true
	}
	for k := p.rng.IntN(plan.MaxReentry + 1); k > 0; k-- {
		a := w.drawReentry()
		a.mode = mode
		switch w.acquire(h, lock, a).Outcome {
		case model.OK:
			holds++
		case model.Info, outCrashed:
			return holds, false
		}
	}
	return holds, true
}

// sectionsAndReleases runs one section per hold, each followed by the
// release of one hold of mode's side. It reports false when the process
// was retired or crashed.
func (w *worker) sectionsAndReleases(h impl.Locker, lock, mode string, holds int, storm bool) bool {
	for holds > 0 {
		hold := w.rwHold(mode)
		if storm {
			hold = 0
		}
		if !w.section(h, lock, sectionSpec{hold: hold, mode: mode}) {
			return false
		}
		switch w.releaseMode(h, lock, mode, holds == 1) {
		case model.OK:
			holds--
		case model.Fail:
			holds = 0 // the lock says we hold nothing
		default:
			return false
		}
	}
	return true
}

// downgrade, holding holds of the write side wh: one write section, the
// read side taken (a reentrant acquire of the holder: it must be granted),
// every write hold released, one read section, the read hold released.
// It reports false when the process was retired or crashed.
func (w *worker) downgrade(sd impl.Sided, wh impl.Locker, lock string, holds int) bool {

	if !w.section(wh, lock, sectionSpec{hold: w.rwHold(impl.ModeWrite), mode: impl.ModeWrite}) {
		return false
	}
	rh := sd.Side(impl.ModeRead)
	a := w.drawReentry()
	a.mode = impl.ModeRead
	reads := 0
	switch w.acquire(rh, lock, a).Outcome {
	case model.OK:
		reads = 1
	case model.Info, outCrashed:
		return false
	}
	for ; holds > 0; holds-- {
		switch w.releaseMode(wh, lock, impl.ModeWrite, false) {
		case model.OK:
		case model.Fail:
			holds = 1 // the lock says we hold nothing
		default:
			return false
		}
	}
	return w.readsAfterDowngrade(rh, lock, reads)
}

// readsAfterDowngrade is sectionsAndReleases of a downgrade's read holds,
// long in LongDowngradePercent of them (0: LongReadPercent).
func (w *worker) readsAfterDowngrade(rh impl.Locker, lock string, reads int) bool {
	plan := w.r.plan
	if plan.LongDowngradePercent == 0 || reads == 0 {
		return w.sectionsAndReleases(rh, lock, impl.ModeRead, reads, false)
	}
	hold := plan.Hold.Draw(w.p.rng)
	if w.p.rng.IntN(100) < plan.LongDowngradePercent {
		hold = plan.LongRead.Draw(w.p.rng)
	}
	if !w.section(rh, lock, sectionSpec{hold: hold, mode: impl.ModeRead}) {
		return false
	}
	switch w.releaseMode(rh, lock, impl.ModeRead, true) {
	case model.OK, model.Fail:
		return true
	}
	return false // info (retired) or crashed
}

// rwHold draws how long a section of mode's side lasts: Hold, or for a
// read, LongRead in LongReadPercent of them.
func (w *worker) rwHold(mode string) time.Duration {
	plan, rng := w.r.plan, w.p.rng
	if mode == impl.ModeRead && plan.LongReadPercent > 0 && rng.IntN(100) < plan.LongReadPercent {
		return plan.LongRead.Draw(rng)
	}
	return plan.Hold.Draw(rng)
}
