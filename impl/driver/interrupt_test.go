package driver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// TestInterruptReachesTheCall: a blocked Lock whose context was marked
// interruptible and is then cancelled is interrupted, not given up with its
// process: the driver answers it fail (interrupted), the Locker returns
// ErrNotObtained with context.Canceled, and the process serves on. A
// cancelled call not marked interruptible still ends the process (info).
// (With one owner per process the fake's lock is the process's own, so no
// call blocks: TestInterruptOneOwner.)
func TestInterruptReachesTheCall(t *testing.T) {
	m := openFake(t, ownersOptions(2))
	ctx := ctxFor(t, 10*time.Second)
	l1, l2 := m.NewLocker("l0", "p1"), m.NewLocker("l0", "p2").(*Locker)
	if err := l1.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if l2.Interruptible() {
		t.Fatalf("interruptible before its driver started")
	}
	if err := l2.Prepare(ctx); err != nil {
		t.Fatal(err)
	}
	if !l2.Interruptible() {
		t.Fatalf("a driver announcing interrupts is not interruptible")
	}
	cctx, cancel := context.WithCancel(impl.MarkInterruptible(ctx))
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	err := l2.Lock(cctx, 0)
	if !errors.Is(err, impl.ErrNotObtained) || !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted lock: %v, want ErrNotObtained and context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("interrupted lock answered after %v", d)
	}
	p := m.running("p2")
	if got, err := l2.TryLock(ctx, 0, time.Second); err != nil || got {
		t.Fatalf("p2 trylock after its interrupt: %v %v, want false (p1 holds)", got, err)
	}
	if m.running("p2") != p || p == nil {
		t.Fatalf("the interrupt ended the process")
	}
	cctx, cancel = context.WithCancel(ctx) // not marked: the call is given up with its process
	time.AfterFunc(50*time.Millisecond, cancel)
	if err := l2.Lock(cctx, 0); errors.Is(err, impl.ErrNotObtained) || err == nil {
		t.Fatalf("a cancelled call not marked interruptible: %v, want the process's end", err)
	}
}

// TestInterruptOneOwner: a driver that announces interrupts names the owner
// of every request even when each process hosts one owner, so its calls
// can be interrupted.
func TestInterruptOneOwner(t *testing.T) {
	m := openFake(t, ownersOptions(1))
	ctx := ctxFor(t, 10*time.Second)
	l := m.NewLocker("l0", "p1").(*Locker)
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if p := m.running("p1"); p == nil || !p.shared || !l.Interruptible() {
		t.Fatal("one owner per process: requests do not name their owner, so they cannot be interrupted")
	}
}
