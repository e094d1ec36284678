package workloads

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// errCrashed ends the ops of a crashed process.
var errCrashed = errors.New("workloads: process crashed by a fault")

// errWorkerStopped is what Stall returns for a worker that has finished.
var errWorkerStopped = errors.New("workloads: worker stopped")

// outCrashed is what acquire and release return, without recording an op,
// when the process crashed before the op started.
const outCrashed model.Outcome = ""

// worker is one slot of the run: a sequence of logical processes, one at a
// time, each with its own owner token and handles. A fault names a worker
// ("w3"), not a process: the worker survives the retirement of its process.
type worker struct {
	r    *runner
	g    *group // the client process its owners run in
	slot int
	name string
	// makers has one Maker per part of the subject; process id p uses
	// makers[r.partOf(p, its client, len(makers))].
	makers []impl.Maker
	hard   context.Context // cut off every op (end of the run's grace period)
	stop   context.Context // done: start no new cycle (the current one finishes)

	p *process // current process; only the worker's goroutine replaces it
	// pid is p's id, for other goroutines (the fault tracker).
	pid atomic.Int64

	// retiredByInfo: the current process's last op ended as info while a
	// crash was pending (the crash then records no Abandon op).
	retiredByInfo bool

	mu     sync.Mutex
	stall  *stallReq // pending or active stall
	crash  *crashReq // pending crash
	procC  context.CancelCauseFunc
	exited bool
	arm    *interruptArm // an interrupt armed (clients.Interrupt)
	cur    *inflightOp   // the op in flight that an interrupt may reach
}

// process is one logical process: an id, an owner token, a random source
// and one handle per lock it touched.
type process struct {
	id      int
	client  int // Op.Client: the client process it runs in (0: not grouped)
	owner   string
	rng     *rand.Rand
	ctx     context.Context // cancelled when the process crashes
	handles map[string]impl.Locker
	held    string // lock currently held ("" when none)
	lastOp  string // lock of the last op
	// lapsed is the lock whose watchdog hold ran out under this process
	// (its release answered "not held"), or, in a plan whose processes
	// keep one lock object per name (Plan.SharedObjects), whose hold of
	// any lease did (an overrun's): the object carries what the lapse
	// left. "" when none: its next cycles are long holds of that lock
	// until one is granted (worker.phaseTurn).
	lapsed string
}

type stallReq struct {
	frozen     chan struct{} // closed when the worker froze, or the request ended (err set)
	resume     chan struct{} // closed by Unstall
	err        error
	once       sync.Once // closes frozen
	resumeOnce sync.Once // closes resume
	realStallState
}

func newStallReq() *stallReq {
	return &stallReq{frozen: make(chan struct{}), resume: make(chan struct{})}
}

// end closes frozen with err unless the worker froze first; it reports
// whether it did.
func (s *stallReq) end(err error) (ended bool) {
	s.once.Do(func() { s.err = err; close(s.frozen); ended = true })
	return ended
}

// freeze runs stop and closes frozen unless the request ended first; it
// reports whether the worker froze.
func (s *stallReq) freeze(stop func()) (froze bool) {
	s.once.Do(func() { stop(); close(s.frozen); froze = true })
	return froze
}

func (s *stallReq) unstall() { s.resumeOnce.Do(func() { close(s.resume) }) }

type crashReq struct {
	done chan struct{} // closed when the old process is retired
}

// newProcess makes process id the worker's current process.
func (w *worker) newProcess(id int) {
	w.pid.Store(int64(id))
	ctx, cancel := context.WithCancelCause(w.hard)
	client := int(w.g.client.Load())
	w.r.clients.set(id, client)
	w.r.wire.bind(id, w.g.conn, w.r.now())
	w.p = &process{
		id: id, client: client, owner: ownerOf(id), rng: ProcessRand(w.r.cfg.Seed, id),
		ctx: ctx, handles: map[string]impl.Locker{},
	}
	w.mu.Lock()
	w.procC = cancel
	w.mu.Unlock()
}

// ownerOf is the owner token of process id.
func ownerOf(id int) string { return fmt.Sprintf("p%d", id) }

// retire abandons the current process's handles (so their renewal stops and
// their holds run out within one lease) and starts a new process. abandon
// records a model.Abandon op first (for a retirement that no info op made).
// drop leaves the handles as they are instead (see retireInfo).
func (w *worker) retire(abandon, drop bool) {
	p := w.p
	if abandon {
		lock := p.held
		if lock == "" {
			lock = p.lastOp
		}
		if lock == "" {
			lock = w.r.plan.Locks[0]
		}
		t := w.r.now()
		w.r.record(model.Op{Process: p.id, Lock: lock, Kind: model.Abandon, Call: t, Return: t, Outcome: model.OK})
	}
	for _, h := range p.handles {
		if a, ok := h.(impl.Abandoner); ok && !drop {
			a.Abandon()
		}
	}
	w.mu.Lock()
	cancel := w.procC
	w.mu.Unlock()
	cancel(errCrashed)
	w.newProcess(int(w.r.nextPID.Add(1) - 1))
}

// handle returns the current process's handle on lock.
func (w *worker) handle(lock string) impl.Locker {
	h, ok := w.p.handles[lock]
	if !ok {
		h = w.makers[w.r.partOf(w.p.id, w.p.client, len(w.makers))].NewLocker(w.r.prefix+lock, w.p.owner)
		w.p.handles[lock] = h
		w.prepare(h)
	}
	return h
}

// prepare readies h's client before its first op is timed (impl.Preparer):
// a driver's start-up is not the lock's waiting. It is bounded by the
// Preparer's own start bound (a driver's StartTimeout, counted once a start
// slot is free) and by the process's end, not by an op's timeout: on a
// loaded machine a start-up queued behind others' took longer than
// OpTimeout, and every first op of the run then failed. Its error is left
// for the op that follows, which meets it too and is recorded.
func (w *worker) prepare(h impl.Locker) {
	if pr, ok := h.(impl.Preparer); ok {
		_ = pr.Prepare(w.p.ctx)
	}
}

// run is the worker's goroutine: cycles until the run stops.
func (w *worker) run() {
	defer w.finish()
	for {
		if w.crashed() {
			continue
		}
		if w.stop.Err() != nil || w.hard.Err() != nil {
			return
		}
		w.cycle()
	}
}

// finish releases a pending stall or crash request when the worker exits.
func (w *worker) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.exited = true
	if s := w.stall; s != nil {
		s.end(errWorkerStopped)
		w.stall = nil
	}
	if c := w.crash; c != nil {
		close(c.done)
		w.crash = nil
	}
	if w.procC != nil {
		w.procC(nil)
	}
}

// crashed handles a pending crash: it retires the process (abandoning
// without unlocking) and acknowledges. It reports whether it did.
func (w *worker) crashed() bool {
	w.mu.Lock()
	c := w.crash
	w.crash = nil
	w.mu.Unlock()
	if c == nil {
		return false
	}
	w.retire(!w.retiredByInfo, false)
	w.retiredByInfo = false
	close(c.done)
	return true
}

// cycle is one acquire, optional reentries, critical sections and releases
// — or what the run's current phase asks instead (phases.go).
func (w *worker) cycle() {
	r, p := w.r, w.p
	plan := r.plan
	ph := r.phaseNow()
	storm := ph != nil && ph.kind == phaseStorm
	if w.phaseTurn(ph) {
		return
	}
	if !storm && !w.sleep(plan.Think.Draw(p.rng), true) {
		return
	}
	lock := r.lockOf(p, p.rng.IntN(len(plan.Locks))) // takeover.go
	if plan.CancelPercent > 0 && p.rng.IntN(100) < plan.CancelPercent && interruptible(w.handle(cancelLock(lock))) {
		w.cancelCycle(cancelLock(lock))
		return
	}
	h := w.handle(lock)
	p.lastOp = lock
	if sd, ok := h.(impl.Sided); ok && r.subj.ReadWrite {
		w.rwCycle(sd, lock, storm) // worker_rw.go
		return
	}
	if plan.StrayUnlockPercent > 0 && p.rng.IntN(100) < plan.StrayUnlockPercent {
		w.release(h, lock, true) // held by no one here: it must fail
		return
	}
	if w.acquire(h, lock, w.drawAcquire(storm)).Outcome != model.OK {
		return // fail: try again; info: retired
	}
	p.held = lock
	holds := 1
	long := r.takeover(lock, p.id, plan.Lease) // takeover.go
	if r.subj.Reentrant && plan.MaxReentry > 0 && !storm {
		for k := p.rng.IntN(plan.MaxReentry + 1); k > 0; k-- {
			switch w.acquire(h, lock, w.drawReentry()).Outcome {
			case model.OK:
				holds++
			case model.Info, outCrashed:
				return
			}
		}
	}
	if !w.nest(lock, storm) {
		return
	}
	for holds > 0 {
		hold := plan.Hold.Draw(p.rng)
		switch {
		case long:
			hold, long = r.takeoverHold(hold), false
		case storm:
			hold = 0
		}
		if !w.section(h, lock, sectionSpec{hold: hold}) {
			return
		}
		if !w.releaseHold(h, lock, plan.Lease, &holds) {
			return
		}
	}
	p.held = ""
}

// phaseTurn makes what the run's current phase ph asks instead of a cycle
// of the plan's mix (sleep through a quiet phase, make its special cycle),
// or a lapsed process's long hold, and reports whether it did.
func (w *worker) phaseTurn(ph *phase) bool {
	r, p := w.r, w.p
	now := time.Duration(r.now())
	switch {
	case ph == nil, ph.kind == phaseStorm:
	case ph.kind == phaseQuiet, ph.windingDown(now):
		w.sleep(ph.end-now, true)
		return true
	case ph.draining(now):
		w.sleep(ph.start+shareDrain-now, true)
		return true
	case ph.anchors(now):
		w.anchor(ph) // worker_shared.go
		return true
	case ph.shared:
		if k, ok := ph.turn(now, r.plan.Owners()); ok {
			w.dyingReader(ph, k)
			return true
		}
	case ph.claim(now):
		w.special(ph)
		ph.done()
		return true
	}
	if p.lapsed != "" && r.sched.longHolds() {
		// The next hold after a lapse is where state the lapse left in
		// the lock's client shows (a renewal entry, a reentry count): it
		// must be renewed like any, so it is made one that needs it.
		w.special(&phase{kind: phaseLongHold, lock: p.lapsed, hold: r.plan.Phases.LongHold.Of(r.watchdogLease, p.rng)})
		return true
	}
	return false
}

// releaseHold releases one of holds, taken with lease (0: a watchdog's),
// and counts it down (to 0 when the lock says we hold nothing: a watchdog
// hold then lapsed). It reports false when the process was retired or
// crashed.
func (w *worker) releaseHold(h impl.Locker, lock string, lease time.Duration, holds *int) bool {
	return w.releaseHoldMode(h, lock, "", lease, holds)
}

// releaseHoldMode is releaseHold of one side (mode) of a read-write lock.
func (w *worker) releaseHoldMode(h impl.Locker, lock, mode string, lease time.Duration, holds *int) bool {
	switch w.releaseMode(h, lock, mode, *holds == 1) {
	case model.OK:
		*holds--
	case model.Fail:
		*holds = 0 // the lock says we hold nothing
		w.p.lapsed = ""
		if lease == 0 || w.r.plan.SharedObjects {
			w.p.lapsed = lock // a hold ran out under it
		}
	default:
		return false // info (retired) or crashed
	}
	return true
}

// acquireHow is how one acquire is made.
type acquireHow struct {
	try   bool          // TryLock (else Lock)
	wait  time.Duration // TryLock's wait
	lease time.Duration // 0: watchdog
	// cancel >= 0 cancels the call's context that long after the call;
	// atReply instead cancels it at the reply to its first lock command
	// (cancelAtReply).
	cancel  time.Duration
	atReply bool
	// mode is the side of a read-write lock (impl.ModeRead, ModeWrite);
	// "" for other locks. It is recorded as the op's Mode.
	mode string
}

// drawAcquire draws a first acquire from the plan's mix (a storm's is a
// blocking Lock).
func (w *worker) drawAcquire(storm bool) acquireHow {
	plan, rng := w.r.plan, w.p.rng
	return acquireHow{lease: plan.Lease, cancel: -1, try: rng.IntN(100) < plan.TryLockPercent && !storm, wait: w.drawWait()}
}

// drawWait draws a TryLock's wait: none for the plan's NoWaitPercent (no
// draw is made when it is 0, so older plans replay), else from its Wait.
func (w *worker) drawWait() time.Duration {
	plan, rng := w.r.plan, w.p.rng
	if plan.NoWaitPercent > 0 && rng.IntN(100) < plan.NoWaitPercent {
		return 0
	}
	return plan.Wait.Draw(rng)
}

// drawReentry draws a reentrant acquire (never cancelled: an unknown
// outcome would retire a process that still holds).
func (w *worker) drawReentry() acquireHow {
	plan, rng := w.r.plan, w.p.rng
	return acquireHow{try: rng.IntN(100) < plan.TryLockPercent, wait: w.drawWait(), lease: plan.Lease, cancel: -1}
}

// acquire runs Lock or TryLock as a says and records it. It returns the op
// recorded (Outcome outCrashed, nothing recorded, when the process crashed
// before the call).
func (w *worker) acquire(h impl.Locker, lock string, a acquireHow) model.Op {
	r, p := w.r, w.p
	o := model.Op{Process: p.id, Lock: lock, Kind: model.Acquire, Lease: int64(a.lease), Blocking: !a.try, Mode: a.mode}
	if a.try {
		o.Wait = int64(a.wait)
	}
	var enq time.Time
	if e, ok := h.(impl.Enqueuer); ok {
		e.OnEnqueued(func(at time.Time) { enq = at })
	}
	// An acquire runs to its end even when the run stops: cancelling it
	// would make it fail, perhaps while the lock was free, which the model
	// rightly calls a violation. Only a crash (or the end of StopTimeout)
	// cuts it off, and then it ends as info.
	w.hushWait()
	if p.ctx.Err() != nil {
		return model.Op{Outcome: outCrashed}
	}
	ctx, cancel := w.opContext(h, a.cancel >= 0 || a.atReply)
	defer cancel()
	switch {
	case a.atReply:
		defer w.cancelAtReply()()
	case a.cancel >= 0:
		defer time.AfterFunc(a.cancel, cancel).Stop()
	}
	ctx, form := w.withCallForm(ctx)

	o.Call = r.now()
	var err error
	granted := true
	if a.try {
		granted, err = h.TryLock(ctx, a.wait, a.lease)
	} else {
		err = h.Lock(ctx, a.lease)
	}
	o.Return = r.now()
	cancel() // the call is over: an interrupt armed now waits for the next one (deliver)
	o.Form = formUsed(form)
	switch {
	case err == nil && !granted:
		o.Outcome = model.Fail
	case p.ctx.Err() != nil && err != nil:
		o.Outcome = model.Info // crashed in flight
	default:
		o.Outcome = classify(model.Acquire, err)
	}
	if err != nil {
		o.Error, o.DriverFailed = err.Error(), errors.Is(err, impl.ErrAdapter)
		switch {
		case a.atReply && errors.Is(context.Cause(ctx), errCancelledAtReply):
			o.Cancelled = true
			o.Error = errCancelledAtReply.Error() + ": " + o.Error
		case a.cancel >= 0:
			o.Cancelled = true
			o.Error = fmt.Sprintf("cancelled by the workload after %v: %s", a.cancel, o.Error)
		}
	}
	if interrupted(ctx) {
		o.Cancelled = true
		o.Error = strings.TrimSuffix(errInterrupted.Error()+": "+o.Error, ": ")
	}
	if !enq.IsZero() {
		o.Enqueued = r.at(enq)
	}
	if o.Outcome == model.OK {
		if f, ok := h.(impl.Fenced); ok {
			o.Token = f.Token()
		}
	}
	r.record(o)
	if o.Outcome == model.Info {
		// A cancelled first acquire's handle is dropped, not abandoned:
		// Abandon would stop a renewal that a correct lock never started
		// for it. A cancelled re-entry's is abandoned: the process's
		// earlier hold, which it will never release now, must not be
		// renewed for good by a client that lives on.
		w.retireInfo(o.Cancelled && p.held == "")
	}
	return o
}

// release runs Unlock and records it. last says the process holds nothing
// once it is done (its last hold, or a stray unlock): a release of it that
// gets no answer retires the process but leaves its client running, as an
// application that logs the failed unlock and goes on. A correct lock
// stopped renewing the hold at the attempt, so the hold runs out within a
// lease; a lock whose watchdog outlives a failed unlock renews it on.
// Otherwise the retired process's handles are abandoned (crash).
func (w *worker) release(h impl.Locker, lock string, last bool) model.Outcome {
	return w.releaseMode(h, lock, "", last)
}

// releaseMode is release of one side (mode) of a read-write lock.
func (w *worker) releaseMode(h impl.Locker, lock, mode string, last bool) model.Outcome {
	r, p := w.r, w.p
	w.hushWait()
	if p.ctx.Err() != nil {
		return outCrashed
	}
	w.pausedWait() // a process paused in its section releases once it goes on
	w.pauseAt(h, true, 0)
	ctx, cancel := w.opContext(h, false)
	defer cancel()
	ctx, form := w.withCallForm(ctx)
	o := model.Op{Process: p.id, Lock: lock, Kind: model.Release, Call: r.now(), Mode: mode}
	err := h.Unlock(ctx)
	o.Return = r.now()
	cancel() // the call is over: an interrupt armed now waits for the next one (deliver)
	o.Form = formUsed(form)
	if p.ctx.Err() != nil && err != nil {
		o.Outcome = model.Info
	} else {
		o.Outcome = classify(model.Release, err)
	}
	if err != nil {
		o.Error, o.DriverFailed = err.Error(), errors.Is(err, impl.ErrAdapter)
	}
	if interrupted(ctx) {
		o.Error = strings.TrimSuffix(errInterrupted.Error()+": "+o.Error, ": ")
	}
	r.record(o)
	if o.Outcome == model.Info {
		w.retireInfo(last && !interrupted(ctx))
	}
	return o.Outcome
}

// sectionSpec is how one critical section goes.
type sectionSpec struct {
	hold time.Duration
	// outage, if > 0, cuts the holder's client connections for that long
	// halfway through the hold (a reconnect).
	outage time.Duration
	// overrun marks a section that outlasts its lease on purpose.
	overrun bool
	// mode is the side of a read-write lock the section runs under: a read
	// section reads the register and writes nothing.
	mode string
}

// section is one critical section: read the lock's register, hold, write
// read+1 presenting the handle's fencing token. A stall fault freezes the
// worker between the read and the write. It reports false when the process
// crashed meanwhile (and was retired).
func (w *worker) section(h impl.Locker, lock string, spec sectionSpec) bool {
	r, p := w.r, w.p
	if !r.plan.Counter {
		w.stallPoint(h, spec.hold)
		return w.hold(spec)
	}
	var token int64
	if f, ok := h.(impl.Fenced); ok {
		token = f.Token()
	}
	reg := r.regs[lock]
	o := model.Op{Process: p.id, Lock: lock, Kind: model.Section, Token: token, Call: r.now(), Overrun: spec.overrun, Mode: spec.mode}
	o.Read = reg.read(token, p.id)
	w.stallPoint(h, spec.hold)
	if !w.hold(spec) {
		return false
	}
	if spec.mode == impl.ModeRead {
		o.Write, o.Return, o.Outcome = o.Read, r.now(), model.OK
		r.record(o)
		return true
	}
	w.pausedWait() // a process paused meanwhile writes once it goes on
	o.Write = o.Read + 1
	seq, ok := reg.write(o.Write, token, p.id)
	o.Return = r.now()
	o.Seq = seq
	o.Outcome = model.OK
	if !ok {
		o.Outcome = model.Fail
		o.Error = "stale fencing token"
	}
	r.record(o)
	return true
}

// hold sleeps through a critical section, with its outage halfway. From
// the section's start until the client reconnected after the outage (or
// the section ends), the other owners of a shared client process start no
// op (hush.go).
func (w *worker) hold(spec sectionSpec) bool {
	if spec.outage <= 0 {
		return w.sleep(spec.hold, false)
	}
	end := time.Now().Add(spec.hold)
	lift := w.hushOthers()
	if lift != nil {
		defer lift()
	}
	if !w.sleep(spec.hold/2, false) {
		return false
	}
	cut, ok := w.reconnect(spec.outage)
	if !ok {
		return false
	}
	if lift != nil {
		w.awaitReconnected(cut, end)
		lift()
	}
	return w.sleep(time.Until(end), false)
}

// sleep waits d. It returns false when the process crashed meanwhile (or,
// if interruptible, when the run stopped).
func (w *worker) sleep(d time.Duration, interruptible bool) bool {
	if d <= 0 {
		return w.p.ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	var stop <-chan struct{}
	if interruptible {
		stop = w.stop.Done()
	}
	select {
	case <-t.C:
		return w.p.ctx.Err() == nil
	case <-w.p.ctx.Done():
		return false
	case <-stop:
		return false
	}
}

// retireInfo retires the process after one of its ops ended as info; drop
// leaves its handles as they are instead of abandoning them. An owner of a
// client process shared with other owners through one driver takes them
// all down (crashGroup), as its driver process dies.
func (w *worker) retireInfo(drop bool) {
	if w.p.ctx.Err() != nil {
		// crashed in flight: the crash handler retires it (without an
		// Abandon op: the info op already retired it).
		w.retiredByInfo = true
		return
	}
	if w.sharesProcess() {
		// Its driver process is killed (impl/driver: a process's failure
		// is every owner's): the other owners in it crash with it.
		w.r.crashGroup(w.g, int64(w.p.client), w)
	}
	w.retire(false, drop)
	// The replacement starts like a restarted client, not at once: while
	// Redis is down, an immediate restart would only pile up info ops that
	// tell nothing and make the history needlessly hard to check.
	w.sleep(restartPause, true)
}

// restartPause is how long a worker waits before its replacement process
// issues its first op.
const restartPause = 100 * time.Millisecond

// stallPoint freezes the worker here while a stall is requested: it stops
// the handle's renewal — by freezing the handle's own process when it has
// one (impl.Freezer: SIGSTOP of a driver, thawed at Unstall), else by
// Abandon (the hold is no longer renewed, as when a whole process pauses,
// but the handle can still Unlock truthfully later) — reports frozen and
// waits for Unstall or a crash.
func (w *worker) stallPoint(h impl.Locker, hold time.Duration) {
	w.mu.Lock()
	s := w.stall
	w.mu.Unlock()
	if s == nil {
		return
	}
	if s.real {
		w.pauseAt(h, false, hold)
		return
	}
	var thaw func() error
	froze := s.freeze(func() {
		if f, ok := h.(impl.Freezer); ok && f.Freeze() == nil {
			thaw = f.Thaw // a real process pause: its renewal stops with it
			return
		}
		if a, ok := h.(impl.Abandoner); ok {
			a.Abandon()
		}
	})
	if !froze {
		return // the request ended before we froze
	}
	select {
	case <-s.resume:
	case <-w.p.ctx.Done():
	}
	if thaw != nil {
		_ = thaw()
	}
	w.mu.Lock()
	if w.stall == s {
		w.stall = nil
	}
	w.mu.Unlock()
}

// unstall ends any stall of the worker, pending or active.
func (w *worker) unstall() {
	w.mu.Lock()
	s := w.stall
	w.stall = nil
	w.mu.Unlock()
	if s != nil {
		s.end(errUnstalled)
		s.thaw()
	}
}

// errUnstalled is what a Stall still waiting for its target returns when the
// stall was lifted first.
var errUnstalled = errors.New("workloads: unstalled before the target froze")
