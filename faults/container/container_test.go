package container_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/container"
)

// TestContainer starts Redis in a container and talks to it. It skips, with
// the reason, where no Docker engine runs.
func TestContainer(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	if err := container.Available(ctx); err != nil {
		t.Skipf("skipping: %v", err)
	}
	c, err := container.Start(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("close container: %v", err)
		}
	}()
	rdb := redis.NewClient(c.Options())
	defer rdb.Close()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
}

// TestStartRedisWithoutBinary: with no redis-server binary StartRedis falls
// back to a container, and where no engine runs either, says both.
func TestStartRedisWithoutBinary(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	r, err := container.StartRedis(ctx, faults.ServerConfig{Bin: "/nonexistent/redis-server"})
	if engineErr := container.Available(ctx); engineErr != nil {
		if !errors.Is(err, faults.ErrNoRedisServer) || !errors.Is(err, container.ErrNoEngine) {
			t.Fatalf("StartRedis with neither binary nor engine: %v; want ErrNoRedisServer and ErrNoEngine", err)
		}
		t.Logf("as expected: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, ok := r.(*container.Container); !ok {
		t.Fatalf("StartRedis without a binary returned %T, want a *Container", r)
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
