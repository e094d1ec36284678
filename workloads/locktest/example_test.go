package locktest_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// TestReentrantLock is a locktest suite, as a user writes it: here for
// lockcheck's own reentrant lock, which claims reentrancy and a watchdog
// (whose lease the harness sets short, so that a crashed holder's lock
// runs out fast), the unsafe scenarios included. In this repository -short
// runs no Redis, and make test gives it the default budget (about 60 s:
// every scenario that fits runs once, partition-long's long sections take
// 11 s).
func TestReentrantLock(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	locktest.Run(t, locktest.Lock{
		Name: "reentrant", Reentrant: true, Watchdog: true,
		New: func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return impl.ReentrantMaker(impl.WithWatchdogTimeout(lease))(ctx, rdb)
		},
	})
}

// TestHuntLeavesNothing: a hunt that finds nothing removes its runs from
// $TMPDIR/locktest.
func TestHuntLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	locktest.Hunt(t, locktest.Lock{
		Name: "reentrant-hunt", Reentrant: true, Watchdog: true,
		New: func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return impl.ReentrantMaker(impl.WithWatchdogTimeout(lease))(ctx, rdb)
		},
	}, 3*time.Second, locktest.Seed(7))
	if t.Failed() {
		return
	}
	left, err := filepath.Glob(filepath.Join(tmp, "locktest", "reentrant-hunt", "runs", "*", "*"))
	if err != nil || len(left) > 0 {
		t.Fatalf("the hunt left %v (%v)", left, err)
	}
}

// A lock of your own, with a fixed lease: SimpleMaker stands for your
// constructor. Put the call in a test function of your module and run
// `go test` (-short: about 10 s).
func ExampleRun() {
	var t *testing.T // your test's
	if t == nil {
		return // (this example is compiled, not run: TestReentrantLock runs)
	}
	locktest.Run(t, locktest.Lock{
		Name: "my-lock",
		New: func(ctx context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return impl.SimpleMaker(impl.WithSimpleLease(lease))(ctx, rdb)
		},
	})
}
