package driver

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// openPermitsFake opens a Maker on the fake permits driver in mode.
func openPermitsFake(t *testing.T, mode string) *Maker {
	t.Helper()
	o := fakeOptions(mode)
	o.Capabilities = []string{CapPermitSemaphore, CapLatch}
	return openFake(t, o)
}

// The permit semaphore client: ids come back as the driver gave them,
// leases reach it, a refused release is ErrPermitNotHeld.
func TestPermitSemaphoreClient(t *testing.T) {
	ctx := ctxFor(t, 20*time.Second)
	s := openPermitsFake(t, "permits").NewPermitSemaphore("p0")
	if ok, err := s.TrySetPermits(ctx, 1); !ok || err != nil {
		t.Fatalf("TrySetPermits = %v, %v", ok, err)
	}
	if ok, err := s.TrySetPermits(ctx, 1); ok || err != nil {
		t.Fatalf("TrySetPermits again = %v, %v", ok, err)
	}
	id, err := s.Acquire(ctx, 0)
	if id == "" || err != nil {
		t.Fatalf("Acquire = %q, %v", id, err)
	}
	if _, ok, err := s.TryAcquire(ctx, 10*time.Millisecond, 0); ok || err != nil {
		t.Fatalf("TryAcquire of none = %v, %v", ok, err)
	}
	if _, err := s.Acquire(ctx, 0); !errors.Is(err, impl.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire of none = %v, want ErrNotObtained and DeadlineExceeded", err)
	}
	if err := s.Release(ctx, id); err != nil {
		t.Fatalf("Release = %v", err)
	}
	for _, bad := range []string{id, "", "f00"} {
		if err := s.Release(ctx, bad); !errors.Is(err, impl.ErrPermitNotHeld) {
			t.Fatalf("Release(%q) = %v, want ErrPermitNotHeld", bad, err)
		}
	}
	id, ok, err := s.TryAcquire(ctx, 0, 50*time.Millisecond)
	if !ok || err != nil {
		t.Fatalf("TryAcquire with a lease = %v, %v", ok, err)
	}
	time.Sleep(100 * time.Millisecond)
	if err := s.Release(ctx, id); !errors.Is(err, impl.ErrPermitNotHeld) {
		t.Fatalf("Release after the lease = %v, want ErrPermitNotHeld", err)
	}
	if err := s.AddPermits(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if n, err := s.Available(ctx); n != 3 || err != nil {
		t.Fatalf("Available = %d, %v; want 3", n, err)
	}
}

// An acquire answered ok without a permit id is an error (outcome
// unknown), never a grant of id "".
func TestPermitSemaphoreClientNoID(t *testing.T) {
	ctx := ctxFor(t, 10*time.Second)
	s := openPermitsFake(t, "permits-noid").NewPermitSemaphore("p0")
	if err := s.AddPermits(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if id, ok, err := s.TryAcquire(ctx, 0, 0); ok || err == nil {
		t.Fatalf("TryAcquire = %q, %v, %v; want an error", id, ok, err)
	}
}

// The latch client: count reaches the driver and back; an await the
// driver ends at wait_ms is false, one the deadline cut short is the
// deadline's error, as the Go port answers.
func TestLatchClient(t *testing.T) {
	ctx := ctxFor(t, 20*time.Second)
	l := openPermitsFake(t, "permits").NewLatch("c0")
	if ok, err := l.TrySetCount(ctx, 2); !ok || err != nil {
		t.Fatalf("TrySetCount = %v, %v", ok, err)
	}
	if ok, err := l.TrySetCount(ctx, 5); ok || err != nil {
		t.Fatalf("TrySetCount on a set latch = %v, %v", ok, err)
	}
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := l.Count(ctx); n != 1 || err != nil {
		t.Fatalf("Count = %d, %v; want 1", n, err)
	}
	if ok, err := l.Await(ctx, 20*time.Millisecond); ok || err != nil {
		t.Fatalf("Await of a closed latch = %v, %v; want false, nil", ok, err)
	}
	for _, timeout := range []time.Duration{-1, time.Minute} {
		short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		ok, err := l.Await(short, timeout)
		cancel()
		if ok || !errors.Is(err, impl.ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Await(%v) cut by the deadline = %v, %v; want ErrNotObtained and DeadlineExceeded", timeout, ok, err)
		}
	}
	if err := l.CountDown(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.Await(ctx, 0); !ok || err != nil {
		t.Fatalf("Await of an open latch = %v, %v", ok, err)
	}
}
