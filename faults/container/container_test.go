package container_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/container"
)

// needEngine skips t, saying why, where no Docker engine answers, and
// where there is no redis-server to build the image from.
func needEngine(ctx context.Context, t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs a Docker engine (skipped with -short)")
	}
	if err := container.Available(ctx); err != nil {
		t.Skipf("skipping: %v (make deps starts one: scripts/docker-engine.sh)", err)
	}
}

// TestContainer runs the redis-server of this machine in a container of
// the image built here (never pulled), and checks that it is locked down
// like a process server (password, loopback) and that pause, kill and
// restart act on the container.
func TestContainer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	needEngine(ctx, t)
	c, err := container.Start(ctx, "", faults.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("close container: %v", err)
		}
	}()
	if !strings.HasPrefix(c.Addr(), "127.0.0.1:") {
		t.Errorf("container server on %s, want loopback", c.Addr())
	}
	rdb := redis.NewClient(c.Options())
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	o := c.Options()
	o.Password = ""
	anon := redis.NewClient(o)
	defer anon.Close()
	if err := anon.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("PING without the password: %v, want NOAUTH", err)
	}

	if err := c.Pause(); err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 300*time.Millisecond)
	err = rdb.Get(short, "k").Err()
	cancelShort()
	if err == nil {
		t.Error("GET answered while the container was paused")
	}
	if err := c.Resume(); err != nil {
		t.Fatal(err)
	}
	fresh := redis.NewClient(c.Options())
	defer fresh.Close()
	if v, err := fresh.Get(ctx, "k").Result(); err != nil || v != "v" {
		t.Fatalf("GET after resume: %q, %v", v, err)
	}

	pid := c.PID()
	if err := c.Kill(); err != nil {
		t.Fatal(err)
	}
	if c.Running() {
		t.Fatal("running after kill")
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if c.PID() == pid {
		t.Errorf("restart kept pid %d: want a new container", pid)
	}
	if err := fresh.Get(ctx, "k").Err(); !errors.Is(err, redis.Nil) {
		t.Errorf("GET after kill and restart without persistence: %v, want nil reply", err)
	}
}

// TestStartRedisWithoutBinary: with no redis-server binary StartRedis falls
// back to a container of the image built here before; where no engine
// runs, it says both.
func TestStartRedisWithoutBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if container.Available(ctx) == nil && !testing.Short() {
		// The image this fallback runs is built from a binary first.
		c, err := container.Start(ctx, "", faults.ServerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := container.StartRedis(ctx, faults.ServerConfig{Bin: "/nonexistent/redis-server"})
	if err == nil {
		defer r.Close() // also when -short skips below: the container and its watcher stop
	}
	if engineErr := container.Available(ctx); engineErr != nil {
		if !errors.Is(err, faults.ErrNoRedisServer) || !errors.Is(err, container.ErrNoEngine) {
			t.Fatalf("StartRedis with neither binary nor engine: %v; want ErrNoRedisServer and ErrNoEngine", err)
		}
		t.Logf("as expected: %v", err)
		return
	}
	if testing.Short() {
		t.Skip("integration test: needs a Docker engine (skipped with -short)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*container.Container); !ok {
		t.Fatalf("StartRedis without a binary returned %T, want a *Container", r)
	}
	rdb := redis.NewClient(r.Options())
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestStartRedisPrefersBinary: with redis-server installed StartRedis runs it.
func TestStartRedisPrefersBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	r, err := container.StartRedis(t.Context(), faults.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*faults.Server); !ok {
		t.Fatalf("StartRedis returned %T, want a *faults.Server", r)
	}
}
