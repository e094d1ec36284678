package workloads

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
)

// replyWire is a faults.ClientWire that springs its one trap when the
// test says a reply came (spring), as a Wire's reply pump does.
type replyWire struct {
	mu     sync.Mutex
	before func()
	armed  int
}

func (f *replyWire) Trace(func(faults.WireEvent)) {}

func (f *replyWire) PauseAtReply(_ func(string) bool, before func()) func() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.before, f.armed = before, f.armed+1
	return func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		sprang := f.before == nil
		f.before = nil
		return sprang
	}
}

// spring runs the armed trap's before, as the reply pump does, and reports
// whether one was armed.
func (f *replyWire) spring() bool {
	f.mu.Lock()
	before := f.before
	f.before = nil
	f.mu.Unlock()
	if before != nil {
		before()
	}
	return before != nil
}

// remoteLocker is an impl.Locker served in another process, for opContext
// (only its Interruptible matters here).
type remoteLocker struct{ impl.Locker }

func (remoteLocker) Interruptible() bool { return true }

// lockerServed is a Locker served in this process, or in another when
// remote.
func lockerServed(remote bool) impl.Locker {
	if remote {
		return remoteLocker{}
	}
	return (*impl.ReentrantLock)(nil)
}

func replyWorker(wire faults.ClientWire) *worker {
	r := &runner{plan: Plan{OpTimeout: 5 * time.Second, Interruptible: true}, wire: &wireTracer{wires: []faults.ClientWire{wire}}}
	w := &worker{r: r, g: &group{}, name: "w0", p: &process{ctx: context.Background()}}
	r.workers = []*worker{w}
	return w
}

// An interrupt aimed at a reply lands inside the call's lock command: not
// when armed while a call runs, nor as the next call starts, but when the
// reply to its command comes. A call in this process is cancelled and the
// reply goes on at once; one served in another process has the reply held
// until that process confirmed the interrupt. A call that ends with no
// reply leaves the interrupt armed for the next.
func TestInterruptAtReply(t *testing.T) {
	for _, remote := range []bool{false, true} {
		wire := &replyWire{}
		w, h := replyWorker(wire), lockerServed(remote)
		delivered := make(chan error, 1)
		go func() { delivered <- (clients{r: w.r}).InterruptAtReply(context.Background(), "w0") }()
		waitFor(t, func() bool { w.mu.Lock(); defer w.mu.Unlock(); return w.arm != nil })

		ctx, done := w.opContext(h, false) // a call that gets no reply
		done()
		if interrupted(ctx) || wire.armed != 1 {
			t.Fatalf("remote %v: a call with no reply was interrupted (%v) or armed no trap (%d)", remote, context.Cause(ctx), wire.armed)
		}
		ctx, done = w.opContext(h, false)
		if ctx.Err() != nil {
			t.Fatalf("remote %v: interrupted as the call started", remote)
		}
		sprung := make(chan bool, 1)
		go func() { sprung <- wire.spring() }()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errInterrupted) {
			t.Fatalf("remote %v: call ended by %v, want the interrupt", remote, context.Cause(ctx))
		}
		select {
		case <-sprung:
			if remote {
				t.Fatalf("the reply went on before a remote call returned")
			}
		case <-time.After(100 * time.Millisecond):
			if !remote {
				t.Fatalf("the reply was held for a call in this process")
			}
		}
		if remote {
			impl.InterruptLanded(ctx) // the process confirms the interrupt: the reply goes on
			if !<-sprung {
				t.Fatalf("no trap was armed")
			}
		}
		done()
		if err := <-delivered; err != nil {
			t.Fatalf("remote %v: InterruptAtReply: %v", remote, err)
		}
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

// A call the workload cancels at its reply (a hunt plan's
// cancel_at_reply_percent) is cut off when the reply to its lock command
// comes, not before; its cause says so, and a call served in another
// process has the reply held until that process confirmed the interrupt.
// Disarmed after a call that got no reply, the trap springs no more.
func TestCancelAtReply(t *testing.T) {
	for _, remote := range []bool{false, true} {
		wire := &replyWire{}
		w, h := replyWorker(wire), lockerServed(remote)
		ctx, done := w.opContext(h, true)
		disarm := w.cancelAtReply()
		if ctx.Err() != nil || wire.armed != 1 {
			t.Fatalf("remote %v: cancelled before the reply (%v), or no trap armed (%d)", remote, context.Cause(ctx), wire.armed)
		}
		sprung := make(chan bool, 1)
		go func() { sprung <- wire.spring() }()
		<-ctx.Done()
		if !errors.Is(context.Cause(ctx), errCancelledAtReply) || interrupted(ctx) {
			t.Fatalf("remote %v: call ended by %v, want the workload's cancel at the reply", remote, context.Cause(ctx))
		}
		if remote {
			select {
			case <-sprung:
				t.Fatalf("the reply went on before the remote call confirmed the interrupt")
			case <-time.After(50 * time.Millisecond):
			}
			impl.InterruptLanded(ctx)
		}
		if !<-sprung {
			t.Fatalf("remote %v: no trap was armed", remote)
		}
		disarm()
		done()

		ctx, done = w.opContext(h, true) // a call that gets no reply
		w.cancelAtReply()()
		done()
		if wire.spring() || errors.Is(context.Cause(ctx), errCancelledAtReply) {
			t.Fatalf("remote %v: a disarmed trap sprang", remote)
		}
	}
}
