package workloads

import (
	"context"
	"errors"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
)

// errInterrupted is the cause of an op's context that a client-interrupt
// fault cancelled.
var errInterrupted = errors.New("interrupted by the client-interrupt fault")

var _ faults.Interrupter = clients{}

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
	w, err := c.worker(target)
	if err != nil {
		return err
	}
	a := &interruptArm{after: after, delivered: make(chan struct{})}
	w.mu.Lock()
	if w.exited {
		w.mu.Unlock()
		return errWorkerStopped
	}
	w.arm = a
	if op := w.cur; op != nil {
		op.aim(w, a, time.Until(op.start.Add(after)))
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

// interruptArm is an armed interrupt (clients.Interrupt).
type interruptArm struct {
	after     time.Duration
	delivered chan struct{} // closed once an op was interrupted
}

// inflightOp is a worker's op that can be interrupted, while it runs.
type inflightOp struct {
	start  time.Time
	cancel context.CancelCauseFunc
	timer  *time.Timer // the armed interrupt's, if one is aimed at it
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
	op := &inflightOp{start: time.Now(), cancel: cancel}
	w.mu.Lock()
	w.cur = op
	if w.arm != nil {
		op.aim(w, w.arm, w.arm.after)
	}
	w.mu.Unlock()
	return impl.MarkInterruptible(ctx), func() {
		w.mu.Lock()
		w.cur = nil
		if op.timer != nil && op.timer.Stop() && w.arm != nil {
			w.arm.after /= 2 // the call ended first: aim sooner into the next
		}
		w.mu.Unlock()
		stop()
		cancel(nil)
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
