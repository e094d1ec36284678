package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

func startCluster(t *testing.T, cfg faults.ClusterConfig) *faults.Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts a Redis Cluster (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	start := time.Now()
	c, err := faults.StartCluster(ctx, cfg)
	if err != nil {
		t.Fatalf("start cluster: %v", err)
	}
	t.Logf("cluster of %d nodes ready in %v", len(c.Nodes), time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close cluster: %v", err)
		}
	})
	return c
}

// TestClusterKillMaster kills the master of a key's slot: its replica takes
// over, a ClusterClient recovers (writes to that slot succeed again) and
// synced data survives; healing brings the old master back as a replica.
func TestClusterKillMaster(t *testing.T) {
	c := startCluster(t, faults.ClusterConfig{})
	ctx := t.Context()
	rdb := c.NewClusterClient()
	defer rdb.Close()
	const key = "{lock}:counter"
	for range 50 {
		if err := rdb.Incr(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// Keys on every master work.
	for i := range 30 {
		if err := rdb.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	old, err := c.MasterOf(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	f := c.KillMaster(key)
	killed := time.Now()
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if old.Running() {
		t.Fatalf("master %s still running after the kill", old.Addr())
	}
	var n int64
	eventually(t, 15*time.Second, "INCR through the ClusterClient after the master's death", func() error {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		var err error
		n, err = rdb.Incr(cctx, key).Result()
		return err
	})
	t.Logf("master %s killed; ClusterClient wrote again after %v", old.Addr(), time.Since(killed).Round(10*time.Millisecond))
	if n != 51 {
		t.Fatalf("counter after failover = %d, want 51 (50 synced + 1)", n)
	}
	now, err := c.MasterOf(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if now == old {
		t.Fatalf("slot still served by the killed %s", old.Addr())
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if !old.Running() {
		t.Fatal("old master not restarted by Stop")
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := c.WaitOK(wctx); err != nil {
		t.Fatal(err)
	}
	if err := c.WaitSynced(wctx); err != nil {
		t.Fatalf("old master did not resync as a replica: %v", err)
	}
	if m, err := c.MasterOf(ctx, key); err != nil || m == old {
		t.Fatalf("after healing the slot's master = %v, %v; want the promoted replica", m, err)
	}
}

// TestClusterFailoverCommand promotes a replica with CLUSTER FAILOVER
// (coordinated: nothing acknowledged is lost).
func TestClusterFailoverCommand(t *testing.T) {
	c := startCluster(t, faults.ClusterConfig{})
	ctx := t.Context()
	const key = "{x}"
	old, err := c.MasterOf(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	f := c.Failover(key, faults.FailoverCoordinated)
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := f.Start(cctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "slot moves to the replica", func() error {
		m, err := c.MasterOf(ctx, key)
		if err != nil {
			return err
		}
		if m == old {
			return fmt.Errorf("still served by %s", old.Addr())
		}
		return nil
	})
	_ = f.Stop(ctx)
}
