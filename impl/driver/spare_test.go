package driver

import (
	"testing"
	"time"
)

// TestSpares: Open starts the spares, Ready waits for them, an owner's first
// request takes one (no new process), and the first abandon of an owner
// starts one for its replacement, which takes it in turn.
func TestSpares(t *testing.T) {
	opts := fakeOptions("ok")
	opts.Spares = 2
	m := openFake(t, opts)
	ctx := ctxFor(t, 10*time.Second)
	if err := m.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	spare := func() int {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.spares.ready)
	}
	if n := spare(); n != 2 {
		t.Fatalf("%d spares ready, want 2", n)
	}
	ready := m.spares.ready[0]
	a := m.NewLocker("l0", "p0")
	if err := a.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if m.running("p0") != ready || spare() != 1 {
		t.Fatalf("p0 did not take the first spare (%d left)", spare())
	}
	a.(*Locker).Abandon()
	a.(*Locker).Abandon() // a second handle of the same owner: no second spare
	deadline := time.Now().Add(5 * time.Second)
	for spare() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d spares after p0 was abandoned, want 2", spare())
		}
		time.Sleep(10 * time.Millisecond)
	}
	m.mu.Lock()
	starting := m.spares.starting
	m.mu.Unlock()
	if starting != 0 {
		t.Fatalf("%d spares still starting, want 0", starting)
	}
	b := m.NewLocker("l0", "p1")
	if err := b.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if spare() != 1 {
		t.Fatalf("p1 did not take a spare")
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if spare() != 0 {
		t.Fatal("Close left spares")
	}
}

// TestSparesFailToStart: Ready reports a spare that could not start.
func TestSparesFailToStart(t *testing.T) {
	opts := fakeOptions("early")
	opts.Spares = 1
	m := openFake(t, opts)
	if err := m.Ready(ctxFor(t, 10*time.Second)); err == nil {
		t.Fatal("Ready: want the spare's start error")
	}
}
