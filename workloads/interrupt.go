package workloads

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
)

// errInterrupted is the cause of an op's context that a client-interrupt
// fault cancelled.
var errInterrupted = errors.New("interrupted by the client-interrupt fault")

var _ faults.ReplyInterrupter = clients{}

// Interrupt interrupts the target worker's call in flight, or its next one,
// that still runs `after` into it (a Lock, TryLock or Unlock made
// interruptibly: see opContext), by cancelling its context, as
// Thread.interrupt() cuts off a blocked Java thread. A call that ends
// sooner leaves the interrupt armed for the next one, aimed half as far
// into it (so that a client whose calls are all short is interrupted
// too, at last as its call starts). Interrupt returns
// once the interrupt was delivered, or when ctx ends (disarming it). A Go
// lock's call then ends as the Locker contract says (an acquire with
// ErrNotObtained, nothing left behind); an external driver is sent an
// interrupt for the owner's request (impl/driver). The op is recorded
// Cancelled, with the interrupt in its error.
func (c clients) Interrupt(ctx context.Context, target string, after time.Duration) error {
	return c.interrupt(ctx, target, &interruptArm{after: after, delivered: make(chan struct{})})
}

// InterruptAtReply interrupts the target worker's next interruptible call
// made holding nothing inside its first lock command: the RESP proxy in
// front of its client holds that command's reply, the call is interrupted,
// and the reply goes on once the interrupt landed (deliverAtReply). A
// worker with no proxy is interrupted as its call starts. It returns as
// Interrupt does.
func (c clients) InterruptAtReply(ctx context.Context, target string) error {
	return c.interrupt(ctx, target, &interruptArm{atReply: true, delivered: make(chan struct{})})
}

// interrupt arms a on target's worker and waits for its delivery.
func (c clients) interrupt(ctx context.Context, target string, a *interruptArm) error {
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.exited {
		w.mu.Unlock()
		return errWorkerStopped
	}
	w.arm = a
	if op := w.cur; op != nil && !a.atReply {
		op.aim(w, a, time.Until(op.start.Add(a.after)))
	}
	w.mu.Unlock()
	select {
	case <-a.delivered:
		return nil
	case <-ctx.Done():
		w.mu.Lock()
		if w.arm == a {
			w.arm = nil
		}
		w.mu.Unlock()
		return ctx.Err()
	}
}

// interruptArm is an armed interrupt (clients.Interrupt, or with atReply
// clients.InterruptAtReply).
type interruptArm struct {
	after     time.Duration
	atReply   bool
	delivered chan struct{} // closed once an op was interrupted
}

// inflightOp is a worker's op that can be interrupted, while it runs.
type inflightOp struct {
	start  time.Time
	cancel context.CancelCauseFunc
	timer  *time.Timer   // the armed interrupt's, if one is aimed at it
	disarm func() bool   // the at-reply trap's, if one is armed for it
	ended  chan struct{} // closed when the call returned
	end    sync.Once     // closes ended (done may run twice)
	// remote: the call is served in another process (impl.Interruptible),
	// which learns of the interrupt by a message, not at once; landed is
	// closed once that process confirmed it (impl.InterruptLanded).
	remote bool
	landed chan struct{}
	land   sync.Once
}

// aim schedules a's delivery to op in d (at once if d <= 0). w.mu is held.
func (op *inflightOp) aim(w *worker, a *interruptArm, d time.Duration) {
	if op.timer != nil {
		op.timer.Stop()
	}
	op.timer = time.AfterFunc(max(d, 0), func() { w.deliver(a, op) })
}

// deliver cancels op with errInterrupted if a is still armed and op still
// runs, and disarms a.
func (w *worker) deliver(a *interruptArm, op *inflightOp) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.arm != a || w.cur != op {
		return
	}
	w.arm = nil
	op.cancel(errInterrupted)
	close(a.delivered)
}

// opContext is the context of one op of the current process through h:
// bounded by the plan's OpTimeout and ended by a crash. When the run may
// interrupt calls (Plan.Interruptible), or the workload may cancel this one
// (mayCancel), and h can be interrupted, the call is made interruptibly
// (impl.MarkInterruptible) and an armed interrupt reaches it (Interrupt).
// done ends that and releases the context.
func (w *worker) opContext(h impl.Locker, mayCancel bool) (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancelCause(w.p.ctx)
	ctx, stop := context.WithTimeout(ctx, w.r.plan.OpTimeout)
	if !interruptible(h) || !(mayCancel || w.r.plan.Interruptible) {
		return ctx, func() { stop(); cancel(nil) }
	}
	_, remote := h.(impl.Interruptible)
	op := &inflightOp{start: time.Now(), cancel: cancel, ended: make(chan struct{}), remote: remote, landed: make(chan struct{})}
	ctx = impl.OnInterruptLanded(ctx, func() { op.land.Do(func() { close(op.landed) }) })
	w.mu.Lock()
	w.cur = op
	if a := w.arm; a != nil {
		w.aimAt(op, a)
	}
	w.mu.Unlock()
	return impl.MarkInterruptible(ctx), func() {
		op.end.Do(func() { close(op.ended) })
		w.mu.Lock()
		w.cur = nil
		if op.timer != nil && op.timer.Stop() && w.arm != nil {
			w.arm.after /= 2 // the call ended first: aim sooner into the next
		}
		disarm := op.disarm
		w.mu.Unlock()
		if disarm != nil {
			disarm() // no lock command answered in the call: the arm waits for the next
		}
		stop()
		cancel(nil)
	}
}

// aimAt aims a at op, which just started: after a.after, or, for an
// at-reply interrupt, at the reply to op's first lock command (at once
// when w's client has no proxy). An at-reply interrupt waits for a call
// its process makes holding nothing (a first acquire): the command of a
// re-entry or a release runs on a hold the process already has, which it
// could never release once the interrupt retired it. w.mu is held.
func (w *worker) aimAt(op *inflightOp, a *interruptArm) {
	if !a.atReply {
		op.aim(w, a, a.after)
		return
	}
	if w.p.held != "" {
		return
	}
	wire := w.r.wireOf(w)
	if wire == nil {
		op.aim(w, a, 0)
		return
	}
	op.disarm = wire.PauseAtReply(faults.LockCommands, func() { w.deliverAtReply(a, op) })
}

// deliverAtReply runs in w's proxy, before the reply to op's lock command
// goes on: it interrupts op, and, for a call served in another process,
// holds the reply until that process confirmed the interrupt or the call
// returned, for at most faults.ReplyHold. A call in this process has its
// context cancelled before it can read the reply.
func (w *worker) deliverAtReply(a *interruptArm, op *inflightOp) {
	w.deliver(a, op)
	holdForLanding(op)
}

// cancelAtReply arms w's call that just started (cancellable, opContext)
// to be cancelled by the workload at the reply to its first lock command,
// as an at-reply interrupt is (deliverAtReply): the command has run in
// Redis when the call learns it was cancelled. A call made with no proxy
// is cancelled at once. It returns the trap's disarm, to run when the call
// returned.
func (w *worker) cancelAtReply() (disarm func()) {
	w.mu.Lock()
	op := w.cur
	w.mu.Unlock()
	if op == nil {
		return func() {}
	}
	wire := w.r.wireOf(w)
	if wire == nil {
		op.cancel(errCancelledAtReply)
		return func() {}
	}
	d := wire.PauseAtReply(faults.LockCommands, func() {
		op.cancel(errCancelledAtReply)
		holdForLanding(op)
	})
	return func() { d() }
}

// errCancelledAtReply is the cause of a call the workload cancelled at its
// lock command's reply (cancelAtReply).
var errCancelledAtReply = errors.New("cancelled by the workload at its lock command's reply")

// holdForLanding holds, in the proxy, the reply to op's lock command after
// op was cut off: for a call served in another process, until that
// process confirmed the interrupt or the call returned, for at most
// faults.ReplyHold. A call in this process has had its context cancelled
// before it can read the reply, and is not waited for.
func holdForLanding(op *inflightOp) {
	if !op.remote {
		return
	}
	t := time.NewTimer(faults.ReplyHold)
	defer t.Stop()
	select {
	case <-op.landed:
	case <-op.ended:
	case <-t.C:
	}
}

// interruptible reports whether h's calls end with their context as the
// Locker contract says (impl.Interruptible).
func interruptible(h impl.Locker) bool {
	i, ok := h.(impl.Interruptible)
	return !ok || i.Interruptible()
}

// interrupted reports whether an op's context was cut off by an interrupt.
func interrupted(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), errInterrupted)
}
