package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// startSentinel starts a Sentinel topology for the test and closes it in
// t.Cleanup. Skipped under -short.
func startSentinel(t *testing.T, cfg faults.SentinelConfig) *faults.Sentinel {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a Sentinel topology (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	start := time.Now()
	top, err := faults.StartSentinel(ctx, cfg)
	if err != nil {
		t.Fatalf("start sentinel topology: %v", err)
	}
	t.Logf("sentinel topology ready in %v: master %s, sentinels %v", time.Since(start).Round(time.Millisecond), top.Nodes[0].Addr(), top.SentinelAddrs())
	t.Cleanup(func() {
		if err := top.Close(); err != nil {
			t.Errorf("close sentinel topology: %v", err)
		}
	})
	return top
}

// TestSentinelKillMasterFailover kills the master: a replica must be promoted
// within a few seconds, a FailoverClient must follow it (writes succeed
// afterwards, and the writes acknowledged before the kill, synced to the
// replicas, are still there), and healing makes the old master a replica.
func TestSentinelKillMasterFailover(t *testing.T) {
	top := startSentinel(t, faults.SentinelConfig{Replicas: 2})
	ctx := t.Context()
	rdb := top.NewFailoverClient()
	defer rdb.Close()
	for i := range 100 {
		if err := rdb.RPush(ctx, "list", i).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := top.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	old, err := top.CurrentMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := top.KillMaster()
	killed := time.Now()
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// Sentinel reports a new master within ~10 s.
	var promoted string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if addr, err := top.CurrentMaster(ctx); err == nil && addr != old {
			promoted = addr
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if promoted == "" {
		t.Fatalf("no replica promoted within 15 s of killing %s", old)
	}
	t.Logf("master %s killed; %s promoted after %v", old, promoted, time.Since(killed).Round(10*time.Millisecond))

	// The client follows: a write succeeds (retrying our own way: the client
	// has MaxRetries -1), and lands on the promoted node.
	var werr error
	for time.Now().Before(deadline.Add(5 * time.Second)) {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		werr = rdb.RPush(cctx, "list", "after").Err()
		cancel()
		if werr == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if werr != nil {
		t.Fatalf("FailoverClient write after failover: %v", werr)
	}
	t.Logf("client wrote again %v after the kill", time.Since(killed).Round(10*time.Millisecond))
	n, err := rdb.LLen(ctx, "list").Result()
	if err != nil || n != 101 {
		t.Fatalf("LLEN after failover = %d, %v; want 101 (100 synced writes + 1)", n, err)
	}
	m, err := top.Master(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Addr(); got != promoted {
		t.Fatalf("Master() = %s, want %s", got, promoted)
	}

	// Heal: the old master comes back as a replica and catches up.
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := top.WaitSynced(wctx); err != nil {
		t.Fatalf("old master did not resync as a replica: %v", err)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

// TestSentinelFailoverCommand forces a failover with SENTINEL FAILOVER.
func TestSentinelFailoverCommand(t *testing.T) {
	top := startSentinel(t, faults.SentinelConfig{Replicas: 1})
	ctx := t.Context()
	old, err := top.CurrentMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := top.Failover()
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := f.Start(cctx); err != nil {
		t.Fatal(err)
	}
	now, err := top.CurrentMaster(ctx)
	if err != nil || now == old {
		t.Fatalf("after SENTINEL FAILOVER master = %s, %v; want other than %s", now, err, old)
	}
	t.Logf("SENTINEL FAILOVER: %s -> %s in %v", old, now, time.Since(start).Round(10*time.Millisecond))
	rdb := top.NewFailoverClient()
	defer rdb.Close()
	eventually(t, 10*time.Second, "write after a forced failover", func() error {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		return rdb.Set(cctx, "k", "v", 0).Err()
	})
	_ = f.Stop(ctx)
}

// TestSentinelPauseMasterSplitBrain pauses the master past DownAfter: the
// Sentinels fail over, and after SIGCONT the old master is still a writable
// master (split brain) until a Sentinel converts it to a replica.
func TestSentinelPauseMasterSplitBrain(t *testing.T) {
	top := startSentinel(t, faults.SentinelConfig{Replicas: 1})
	ctx := t.Context()
	old, err := top.Master(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := top.PauseMaster()
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "failover away from the paused master", func() error {
		addr, err := top.CurrentMaster(ctx)
		if err != nil {
			return err
		}
		if addr == old.Addr() {
			return fmt.Errorf("master is still %s", addr)
		}
		return nil
	})
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	thawed := time.Now()
	rdb := redis.NewClient(old.Options())
	defer rdb.Close()
	// The old master accepts a write after SIGCONT: the split brain.
	if err := rdb.Set(ctx, "stale", "1", 0).Err(); err != nil {
		t.Fatalf("old master refused a write right after SIGCONT: %v (expected split brain)", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := top.WaitSynced(wctx); err != nil {
		t.Fatalf("old master never rejoined as a replica: %v", err)
	}
	t.Logf("old master %s converted to a replica %v after SIGCONT", old.Addr(), time.Since(thawed).Round(100*time.Millisecond))
	if err := rdb.Set(ctx, "stale", "2", 0).Err(); err == nil {
		t.Fatal("old master still accepts writes after its conversion")
	}
}
