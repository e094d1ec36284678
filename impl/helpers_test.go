package impl

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// testWatchdog is the watchdog timeout of integration tests: short, so
// expiry scenarios take a fraction of a second.
const testWatchdog = 300 * time.Millisecond

// newTestClient makes a lock Client on s with a short watchdog, closed (and
// checked for a clean close) in t.Cleanup.
func newTestClient(t testing.TB, s *faults.Server, opts ...Option) (*Client, *redis.Client) {
	t.Helper()
	rdb := redistest.Client(t, s)
	c := NewClient(rdb, append([]Option{WithWatchdogTimeout(testWatchdog)}, opts...)...)
	if err := c.Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("close client: %v", err)
		}
	})
	return c, rdb
}

// eventually polls cond every 10 ms until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ctxT is a test context bounded so a hang fails instead of timing out the
// whole package.
func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
