package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

// The deployments below are started by the test on loopback; lockcheck
// only gets their addresses, as it would for a deployment elsewhere.

func TestRemoteSentinelFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Sentinel deployment")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	s, err := faults.StartSentinel(ctx, faults.SentinelConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t.Setenv(envRedisPassword, s.Password())
	t.Setenv(envSentinelPassword, s.Password())
	before, err := s.CurrentMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := lockcheck(t, "run", "--sentinel", strings.Join(s.SentinelAddrs(), ","), "--master", s.MasterName(),
		"--scenario", "remote-sentinel-failover", "--subject", "reentrant", "--seed", "1", "--out", t.TempDir())
	if code == exitUsage {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	after, err := s.CurrentMaster(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Fatalf("master still %s: SENTINEL FAILOVER did not happen\n%s", before, stdout)
	}
	if !strings.Contains(stdout, "reentrant on remote-sentinel-failover") {
		t.Fatalf("no verdict line:\n%s", stdout)
	}
	t.Logf("failover %s -> %s; exit %d\n%s", before, after, code, stdout)
}

func TestRemoteClusterClientKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	c, err := faults.StartCluster(ctx, faults.ClusterConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	t.Setenv(envRedisPassword, c.Password())
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "run", "--cluster", strings.Join(c.Addrs(), ","),
		"--scenario", "remote-client-kill", "--subject", "reentrant,fair", "--seed", "2", "--out", out)
	if code != exitValid {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitValid, stdout, stderr)
	}
	if strings.Count(stdout, "as expected (valid)") != 2 {
		t.Fatalf("want two valid verdicts:\n%s", stdout)
	}
	// Each client reached the nodes through proxies of its own: both runs
	// have a wire trace that names the nodes.
	traces, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", "wire.jsonl"))
	for _, f := range traces {
		if b, err := os.ReadFile(f); err != nil || !strings.Contains(string(b), `"node":"`) {
			t.Errorf("%s: no command naming its node (%v)", f, err)
		}
	}
	if len(traces) != 2 {
		t.Fatalf("wire traces %v: want one per run", traces)
	}
}

func TestRemoteRedisClientPause(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	srv, err := faults.StartServer(ctx, faults.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv(envRedisPassword, srv.Password())
	code, stdout, stderr := lockcheck(t, "run", "--redis", "redis://"+srv.Addr()+"/0",
		"--scenario", "remote-client-pause", "--subject", "fenced", "--seed", "3", "--out", t.TempDir())
	if code != exitValid {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

func TestRunRedlockNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-servers")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	n, err := faults.StartNodes(ctx, faults.NodesConfig{N: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	t.Setenv(envRedisPassword, n.Password())
	code, stdout, stderr := lockcheck(t, "run", "--subject", "redlock", "--redlock-nodes", strings.Join(n.Addrs(), ","),
		"--workload", "counter", "--duration", "3s", "--seed", "4", "--out", t.TempDir())
	if code != exitValid {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, _, stderr = lockcheck(t, "run", "--subject", "redlock", "--duration", "1s", "--out", t.TempDir())
	if code == exitValid || !strings.Contains(stderr, "needs independent nodes") {
		t.Fatalf("redlock without nodes: exit %d, stderr:\n%s", code, stderr)
	}
}

func TestRemoteFlagsBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--sentinel", "10.0.0.1:26379", "--duration", "1s"},
		{"run", "--redis", "10.0.0.1:6379", "--cluster", "10.0.0.2:7000"},
		{"run", "--cluster", "10.0.0.2:7000", "--toxiproxy", "10.0.0.3:8474"},
		{"run", "--scenario", "remote-client-kill"},
	} {
		if code, _, _ := lockcheck(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}
