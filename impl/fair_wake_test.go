package impl

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// A head waiter that gives up after the unlock already published to it must
// pass the wake-up on: the next waiter sleeps on the holder's TTL (20 s
// here) and would otherwise find the free lock only then (the fair stall of
// lockcheck run --subject fair --seed 3: a TryLock with a 1 ms wait at the
// head, woken by the unlock, timed out and left; the whole queue then slept
// one watchdog lease).
func TestFairLeavingHeadWakesNext(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	nc, nrdb := newTestClient(t, s)
	scripts := &scriptCounter{}
	nrdb.AddHook(scripts)
	ctx := ctxT(t)
	const name = "leavewake"
	holder := c.Fair(name, "h")
	if err := holder.Lock(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	// The head: queued by its acquire script, but no goroutine waits for it,
	// so the unlock's message to it is lost, as when it is on its way out.
	head := c.Fair(name, "head")
	if r, err := head.tryOnce(ctx, false, time.Second, time.Second, time.Now()); err != nil || r.ok {
		t.Fatalf("head attempt = %+v, %v; want queued", r, err)
	}
	next := nc.Fair(name, "next")
	errc := make(chan error, 1)
	go func() {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		errc <- next.Lock(lctx, time.Second)
	}()
	// Two attempts: the first queues, the second follows the confirmation
	// of the subscription; then the waiter sleeps on the holder's TTL.
	eventually(t, 5*time.Second, "next queued and asleep", func() bool { return scripts.n.Load() >= 2 })
	if err := holder.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := head.leave(time.Second); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		if errors.Is(err, ErrNotObtained) {
			t.Fatal("the next waiter was not woken when the head left the queue of a free lock")
		}
		t.Fatal(err)
	}
	if err := next.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, name)
}

// scriptCounter is a go-redis hook counting the scripts (EVAL, EVALSHA) that
// got a reply.
type scriptCounter struct{ n atomic.Int64 }

func (h *scriptCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if strings.HasPrefix(cmd.Name(), "eval") {
			h.n.Add(1)
		}
		return err
	}
}

func (h *scriptCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// A head whose deadline passed is purged by whichever script runs next; if
// the lock is free then, the new head must be woken: an unlock woke only
// the purged head (here a process that is gone), and the next waiter
// sleeps on the holder's TTL (20 s here).
func TestFairPurgedHeadWakesNext(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	nc, nrdb := newTestClient(t, s)
	scripts := &scriptCounter{}
	nrdb.AddHook(scripts)
	ctx := ctxT(t)
	const name = "purgewake"
	holder := c.Fair(name, "h")
	if err := holder.Lock(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	// The head queues as if its clock were 19 s behind, so its deadline
	// (the lock's 20 s TTL + 1 ms on its clock) passes in about 1 s; its
	// process is gone.
	head := c.Fair(name, "head")
	if r, err := head.tryOnce(ctx, false, time.Second, time.Millisecond, time.Now().Add(-19*time.Second)); err != nil || r.ok {
		t.Fatalf("head attempt = %+v, %v; want queued", r, err)
	}
	deadline, err := rdb.ZScore(ctx, TimeoutName(name), head.Field()).Result()
	if err != nil {
		t.Fatal(err)
	}
	next := nc.Fair(name, "next")
	errc := make(chan error, 1)
	go func() {
		lctx, cancel := context.WithTimeout(ctx, 8*time.Second)
		defer cancel()
		errc <- next.Lock(lctx, time.Second)
	}()
	eventually(t, 5*time.Second, "next queued and asleep", func() bool { return scripts.n.Load() >= 2 })
	if err := holder.Unlock(ctx); err != nil { // wakes the head, which is gone
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the head's deadline passed", func() bool {
		return float64(time.Now().UnixMilli()) > deadline
	})
	// A one-shot attempt purges the head and finds next at the head.
	if ok, err := c.Fair(name, "other").TryLock(ctx, 0, time.Second); ok || err != nil {
		t.Fatalf("TryLock behind a queued waiter = %v, %v; want false", ok, err)
	}
	if err := <-errc; err != nil {
		if errors.Is(err, ErrNotObtained) {
			t.Fatal("the new head was not woken when the stale head of a free lock was purged")
		}
		t.Fatal(err)
	}
	if err := next.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	fairClean(t, rdb, name)
}

// ErrNotObtained promises that nothing was left behind. A cancelled waiter
// whose queue entry could not be removed (the server stopped answering)
// must report an unknown outcome instead.
func TestFairCancelLeaveFailedIsNotNotObtained(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s, WithCleanupTimeout(200*time.Millisecond))
	ctx := ctxT(t)
	const name = "leavefail"
	if err := c.Fair(name, "h").Lock(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	w := c.Fair(name, "w")
	enq := make(chan struct{}, 1)
	w.OnEnqueued(func(time.Time) { enq <- struct{}{} })
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- w.Lock(wctx, time.Second) }()
	<-enq
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Resume(); err != nil {
			t.Error(err)
		}
	}()
	cancel()
	err := <-errc
	if err == nil || errors.Is(err, ErrNotObtained) {
		t.Fatalf("Lock = %v; want an error that does not wrap ErrNotObtained (the queue entry may remain)", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Lock = %v; want it to wrap context.Canceled", err)
	}
}
