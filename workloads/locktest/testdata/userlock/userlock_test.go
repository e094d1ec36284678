package userlock_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/userlock"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// TestLockIsAMutex is the whole suite a user writes for their lock.
func TestLockIsAMutex(t *testing.T) {
	locktest.Run(t, locktest.Lock{
		Name: "userlock",
		New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return userlock.New(rdb, lease), nil
		},
	})
}

// TestLockHunt is a nightly hunt for violations: skipped unless
// $LOCKCHECK_BUDGET (e.g. 10m) says how long to hunt.
func TestLockHunt(t *testing.T) {
	if os.Getenv(locktest.EnvBudget) == "" {
		t.Skip("a nightly hunt: set " + locktest.EnvBudget)
	}
	locktest.Hunt(t, locktest.Lock{
		Name: "userlock",
		New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return userlock.New(rdb, lease), nil
		},
	}, time.Minute)
}
