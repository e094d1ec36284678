package impl

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

func TestRedlockQuorumAndDrift(t *testing.T) {
	for n, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3} {
		l := NewRedlock(make([]redis.Scripter, n), "k", "o")
		if got := l.Quorum(); got != want {
			t.Errorf("Quorum of %d nodes = %d, want %d", n, got, want)
		}
	}
	if got, want := redlockDrift(10*time.Second), 102*time.Millisecond; got != want {
		t.Errorf("drift of a 10 s lease = %v, want %v", got, want)
	}
}

// startRedlockNodes starts n independent redis-servers and returns them with
// one client per node, all closed in t.Cleanup.
func startRedlockNodes(t *testing.T, n int) (*faults.Nodes, []redis.UniversalClient) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	nodes, err := faults.StartNodes(ctxT(t), faults.NodesConfig{N: n})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := nodes.Close(); err != nil {
			t.Errorf("close nodes: %v", err)
		}
	})
	var clients []redis.UniversalClient
	for _, s := range nodes.Servers {
		opt := s.Options()
		opt.DialerRetries = 1 // a dead node fails at once
		c := redis.NewClient(opt)
		t.Cleanup(func() { _ = c.Close() })
		clients = append(clients, c)
	}
	return nodes, clients
}

func newRedlockMaker(t *testing.T, clients []redis.UniversalClient, opts ...RedlockOption) Maker {
	t.Helper()
	m, err := RedlockMaker(clients, append([]RedlockOption{WithRedlockSeed(1)}, opts...)...)(ctxT(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

// TestRedlockMutualExclusion runs workers that read-modify-write a shared
// register under the lock: no update may be lost and no two workers may be
// inside at once. It repeats with one node down.
func TestRedlockMutualExclusion(t *testing.T) {
	nodes, clients := startRedlockNodes(t, 3)
	m := newRedlockMaker(t, clients)
	counter := func(t *testing.T, name string) {
		const workers, rounds = 4, 15
		var register, inside, maxInside atomic.Int64
		var wg sync.WaitGroup
		errc := make(chan error, workers)
		ctx := ctxT(t)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				l := m.NewLocker(name, fmt.Sprintf("w%d", w))
				for range rounds {
					if err := l.Lock(ctx, 5*time.Second); err != nil {
						errc <- err
						return
					}
					in := inside.Add(1)
					for {
						old := maxInside.Load()
						if in <= old || maxInside.CompareAndSwap(old, in) {
							break
						}
					}
					v := register.Load()
					time.Sleep(200 * time.Microsecond)
					register.Store(v + 1)
					inside.Add(-1)
					if err := l.Unlock(ctx); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		if got := register.Load(); got != workers*rounds {
			t.Errorf("register = %d, want %d: updates lost", got, workers*rounds)
		}
		if got := maxInside.Load(); got != 1 {
			t.Errorf("%d workers were inside at once", got)
		}
	}
	t.Run("all nodes up", func(t *testing.T) { counter(t, "redlock-me") })
	if err := nodes.Servers[2].Kill(); err != nil {
		t.Fatal(err)
	}
	t.Run("one node down", func(t *testing.T) { counter(t, "redlock-me-down") })
}

// TestRedlockContention checks TryLock against a holder, with one node down,
// and that Unlock of a non-holder is ErrNotOwner.
func TestRedlockContention(t *testing.T) {
	nodes, clients := startRedlockNodes(t, 3)
	m := newRedlockMaker(t, clients)
	ctx := ctxT(t)
	if err := nodes.Servers[0].Kill(); err != nil {
		t.Fatal(err)
	}
	a, b := m.NewLocker("redlock-c", "a"), m.NewLocker("redlock-c", "b")
	if err := a.Lock(ctx, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if v := a.(*Redlock).ValidUntil(); time.Until(v) <= 0 || time.Until(v) > 2*time.Second {
		t.Fatalf("ValidUntil %v from now, want within (0, 2s]", time.Until(v))
	}
	ok, err := b.TryLock(ctx, 100*time.Millisecond, time.Second)
	if ok || err != nil {
		t.Fatalf("TryLock against a holder = %v, %v; want false, nil", ok, err)
	}
	if err := b.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock by a non-holder = %v, want ErrNotOwner", err)
	}
	if err := a.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	ok, err = b.TryLock(ctx, 0, time.Second)
	if !ok || err != nil {
		t.Fatalf("TryLock after the release = %v, %v; want true, nil", ok, err)
	}
	if err := b.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	// The lease runs out: Unlock then says so.
	if err := a.Lock(ctx, 500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	if err := a.Unlock(ctx); !errors.Is(err, ErrNotOwner) {
		t.Fatalf("Unlock after the lease ran out = %v, want ErrNotOwner", err)
	}
}

// TestRedlockNoQuorum: with 2 of 3 nodes down no attempt can succeed.
func TestRedlockNoQuorum(t *testing.T) {
	nodes, clients := startRedlockNodes(t, 3)
	m := newRedlockMaker(t, clients)
	ctx := ctxT(t)
	for _, s := range nodes.Servers[:2] {
		if err := s.Kill(); err != nil {
			t.Fatal(err)
		}
	}
	l := m.NewLocker("redlock-nq", "a")
	ok, err := l.TryLock(ctx, 200*time.Millisecond, time.Second)
	if ok || !errors.Is(err, ErrNoQuorum) {
		t.Fatalf("TryLock with 2 of 3 nodes down = %v, %v; want false, ErrNoQuorum", ok, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	err = l.Lock(cctx, time.Second)
	if !errors.Is(err, ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrNoQuorum) {
		t.Fatalf("Lock with 2 of 3 nodes down = %v; want ErrNotObtained, DeadlineExceeded and ErrNoQuorum", err)
	}
	// The attempt left nothing behind on the node that answered.
	if n, err := clients[2].Exists(ctx, "redlock-nq").Result(); err != nil || n != 0 {
		t.Fatalf("key left on the live node: exists = %d, %v", n, err)
	}
}

// TestRedlockRestartEmptyBreaksExclusion demonstrates Kleppmann's
// counterexample with faults.RestartEmpty: nodes restarted without
// persistence forget a granted lock and a second owner forms a majority
// while the first one's hold is still valid.
func TestRedlockRestartEmptyBreaksExclusion(t *testing.T) {
	nodes, clients := startRedlockNodes(t, 3)
	m := newRedlockMaker(t, clients)
	ctx := ctxT(t)
	a, b := m.NewLocker("redlock-k", "a"), m.NewLocker("redlock-k", "b")
	if err := a.Lock(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.TryLock(ctx, 0, 20*time.Second); ok || err != nil {
		t.Fatalf("TryLock before the restarts = %v, %v; want false, nil", ok, err)
	}
	for _, s := range nodes.Servers[:2] {
		if err := faults.RestartEmpty(s).Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var ok bool
	eventually(t, 5*time.Second, "second owner gets a majority after the restarts", func() bool {
		var err error
		ok, err = b.TryLock(ctx, 0, 20*time.Second)
		return ok && err == nil
	})
	if time.Now().After(a.(*Redlock).ValidUntil()) {
		t.Fatal("first hold expired: the test shows nothing")
	}
}
