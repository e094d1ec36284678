package userlock_test

import (
	"context"
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
