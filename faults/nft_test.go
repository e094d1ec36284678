package faults_test

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// newFirewall returns a Firewall closed in t.Cleanup, or skips the test when
// nftables cannot be used here.
func newFirewall(t *testing.T) *faults.Firewall {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs nftables (skipped with -short)")
	}
	fw, err := faults.NewFirewall(t.Context())
	if errors.Is(err, faults.ErrNoFirewall) {
		t.Skipf("skipping: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := fw.Close(context.Background()); err != nil {
			t.Errorf("close firewall: %v", err)
		}
		if out, err := exec.Command("nft", "list", "table", "inet", fw.Table()).CombinedOutput(); err == nil {
			t.Errorf("table %s still exists after Close:\n%s", fw.Table(), out)
		}
	})
	return fw
}

// pingFrom PINGs to from the source address from, with a short timeout.
func pingFrom(ctx context.Context, from, to string) error {
	rdb := redis.NewClient(&redis.Options{
		Addr: to, Password: faults.ProcessPassword(), MaxRetries: -1, PoolSize: 1, ContextTimeoutEnabled: true,
		DialTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond,
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
			return d.DialContext(ctx, network, addr)
		},
	})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	return rdb.Ping(ctx).Err()
}

func ruleCount(t *testing.T, fw *faults.Firewall) int {
	t.Helper()
	out, err := exec.Command("nft", "list", "table", "inet", fw.Table()).CombinedOutput()
	if err != nil {
		t.Fatalf("nft list table: %v\n%s", err, out)
	}
	return strings.Count(string(out), " drop")
}

// TestFirewallCutExactlyOneLink cuts A->B and checks that exactly that link
// is cut (A->C and B->C still work, and so does a client on 127.0.0.1), and
// that Stop heals it and removes exactly its rule (another fault's cut of
// D->C stays).
func TestFirewallCutExactlyOneLink(t *testing.T) {
	fw := newFirewall(t)
	ctx := t.Context()
	nodes, err := faults.StartNodes(ctx, faults.NodesConfig{N: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer nodes.Close()
	a, b, c, d := nodes.Servers[0], nodes.Servers[1], nodes.Servers[2], nodes.Servers[3]
	host := func(s *faults.Server) string { h, _, _ := net.SplitHostPort(s.Addr()); return h }
	for _, l := range [][2]*faults.Server{{a, b}, {a, c}, {c, b}} {
		if err := pingFrom(ctx, host(l[0]), l[1].Addr()); err != nil {
			t.Fatalf("before the cut %s -> %s: %v", host(l[0]), l[1].Addr(), err)
		}
	}
	other := fw.Cut(host(d), host(c)) // a second rule that must survive the first fault's Stop
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	f := fw.Cut(a.Addr(), b.Addr())
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if n := ruleCount(t, fw); n != 2 {
		t.Fatalf("%d drop rules in effect, want 2", n)
	}
	if err := pingFrom(ctx, host(a), b.Addr()); err == nil {
		t.Fatalf("A -> B answered through the cut")
	}
	if err := pingFrom(ctx, host(a), c.Addr()); err != nil {
		t.Fatalf("A -> C failed under a cut of A -> B only: %v", err)
	}
	if err := pingFrom(ctx, host(b), c.Addr()); err != nil {
		t.Fatalf("B -> C failed under a cut of A -> B only: %v", err)
	}
	if err := pingFrom(ctx, "127.0.0.1", b.Addr()); err != nil {
		t.Fatalf("a client on 127.0.0.1 -> B failed: %v", err)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if n := ruleCount(t, fw); n != 1 {
		t.Fatalf("after Stop %d drop rules remain, want 1 (the other fault's)", n)
	}
	if err := pingFrom(ctx, host(a), b.Addr()); err != nil {
		t.Fatalf("A -> B after healing: %v", err)
	}
	if err := pingFrom(ctx, host(d), c.Addr()); err == nil {
		t.Fatalf("D -> C answered while its own cut is still in effect")
	}
	if err := other.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestFirewallPartitionReplication partitions a replica from its master:
// replication stops (WAIT gets no ack) and resumes after healing.
func TestFirewallPartitionReplication(t *testing.T) {
	fw := newFirewall(t)
	ctx := t.Context()
	mh, rh := faults.LoopbackHost(), faults.LoopbackHost()
	m := redistest.Start(t, faults.ServerConfig{Host: mh, Args: []string{"--bind-source-addr", mh}})
	_, mport, _ := net.SplitHostPort(m.Addr())
	r := redistest.Start(t, faults.ServerConfig{Host: rh, Args: []string{"--bind-source-addr", rh, "--replicaof", mh, mport, "--repl-timeout", "60"}})
	mc, rc := redistest.Client(t, m), redistest.Client(t, r)
	if err := mc.Set(ctx, "k", "1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := mc.Wait(ctx, 1, 5*time.Second).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT before the partition = %d, %v; want 1", n, err)
	}
	f := fw.Partition([]string{m.Addr()}, []string{r.Addr()})
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mc.Set(ctx, "k", "2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := mc.Wait(ctx, 1, 300*time.Millisecond).Result(); err != nil || n != 0 {
		t.Fatalf("WAIT across the partition = %d, %v; want 0", n, err)
	}
	if v, _ := rc.Get(ctx, "k").Result(); v != "1" {
		t.Fatalf("replica has k=%q across the partition, want the old 1", v)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, 15*time.Second, "replica catches up after healing", func() error {
		v, err := rc.Get(ctx, "k").Result()
		if err != nil {
			return err
		}
		if v != "2" {
			return errors.New("replica has k=" + v)
		}
		return nil
	})
}
