package impl

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// startReplicated starts a master and one replica of it, in sync.
func startReplicated(t *testing.T) (master, replica *faults.Server) {
	t.Helper()
	master = redistest.Start(t, faults.ServerConfig{})
	host, port, err := net.SplitHostPort(master.Addr())
	if err != nil {
		t.Fatal(err)
	}
	replica = redistest.Start(t, faults.ServerConfig{Args: []string{"--replicaof", host, port}})
	rdb := redistest.Client(t, master)
	eventually(t, 10*time.Second, "replica in sync", func() bool {
		info, err := rdb.Info(ctxT(t), "replication").Result()
		return err == nil && strings.Contains(info, "connected_slaves:1") && strings.Contains(info, "state=online")
	})
	return master, replica
}

func TestSyncedLocksAcquireWithAReplica(t *testing.T) {
	master, replica := startReplicated(t)
	for _, kind := range []string{"reentrant", "fair"} {
		t.Run(kind, func(t *testing.T) {
			c, _ := newTestClient(t, master, WithSyncReplicas(1, 200*time.Millisecond))
			l := c.NewLocker("synced-"+kind, "o1")
			if kind == "fair" {
				l = c.Fair("synced-"+kind, "o1")
			}
			ctx := ctxT(t)
			if err := l.Lock(ctx, 0); err != nil {
				t.Fatal(err)
			}
			// The grant reached the replica before Lock returned.
			rep := redistest.Client(t, replica)
			if n, err := rep.Exists(ctx, "synced-"+kind).Result(); err != nil || n != 1 {
				t.Fatalf("replica has the lock: %d, %v", n, err)
			}
			if err := l.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// With the only replica frozen, no acquire is acknowledged: TryLock fails,
// and leaves no hold behind on the master (the grant was undone).
func TestSyncedLocksRefuseUnacknowledgedGrants(t *testing.T) {
	master, replica := startReplicated(t)
	if err := replica.Pause(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.Resume() })
	rdb := redistest.Client(t, master)
	for _, kind := range []string{"reentrant", "fair"} {
		t.Run(kind, func(t *testing.T) {
			c, _ := newTestClient(t, master, WithSyncReplicas(1, 100*time.Millisecond))
			name := "unsynced-" + kind
			l := c.NewLocker(name, "o1")
			if kind == "fair" {
				l = c.Fair(name, "o1")
			}
			ctx := ctxT(t)
			ok, err := l.TryLock(ctx, 350*time.Millisecond, 0)
			if err != nil || ok {
				t.Fatalf("TryLock with the replica frozen = %v, %v; want false, nil", ok, err)
			}
			if n, err := rdb.Exists(ctx, name).Result(); err != nil || n != 0 {
				t.Fatalf("master kept the unacknowledged grant: exists=%d, %v", n, err)
			}
			// Without syncing the same lock is free at once.
			plain, _ := newTestClient(t, master)
			if ok, err := plain.NewLocker(name, "o2").TryLock(ctx, 0, time.Second); err != nil || !ok {
				t.Fatalf("plain TryLock = %v, %v", ok, err)
			}
		})
	}
}

func TestSyncedLocksRejectClusterClient(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{s.Addr()}, MaxRetries: -1})
	t.Cleanup(func() { _ = cc.Close() })
	c := NewClient(cc, WithSyncReplicas(1, 0))
	t.Cleanup(func() { _ = c.Close() })
	_, err := c.NewLocker("x", "o").TryLock(ctxT(t), 0, time.Second)
	if !errors.Is(err, errSyncCluster) {
		t.Fatalf("TryLock on a ClusterClient with WithSyncReplicas: %v, want errSyncCluster", err)
	}
}
