package locktest_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// TestRunInParallel: two parallel subtests each call locktest.Run, on two
// locks at once, and both pass: Run changes no process-wide state (rapid's
// flags included).
func TestRunInParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	locks := []locktest.Lock{
		{Name: "reentrant-a", Reentrant: true, Watchdog: true,
			New: func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
				return impl.ReentrantMaker(impl.WithWatchdogTimeout(lease))(ctx, rdb)
			}},
		{Name: "simple-b",
			New: func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
				return impl.SimpleMaker(impl.WithSimpleLease(lease))(ctx, rdb)
			}},
	}
	for _, lock := range locks {
		t.Run(lock.Name, func(t *testing.T) {
			t.Parallel()
			locktest.Run(t, lock, locktest.Scenarios("no-faults", "client-crash"), locktest.Budget(20*time.Second))
		})
	}
}
