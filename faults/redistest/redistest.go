// Package redistest starts real redis-server processes for tests.
package redistest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// Start starts a redis-server for the test on a free loopback port and
// stops it and removes its files in t.Cleanup. It skips the test under
// -short (unit tests need no Redis) and fails it when redis-server is
// missing, so that an integration run cannot pass by skipping.
func Start(t testing.TB, cfg faults.ServerConfig) *faults.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := faults.StartServer(ctx, cfg)
	if err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close redis-server: %v", err)
		}
	})
	return s
}

// Client returns a go-redis client for s with no hidden retries, closed in
// t.Cleanup.
func Client(t testing.TB, s *faults.Server) *redis.Client {
	t.Helper()
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}
