package workloads

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// TestRedissonFencedClockStepBack: Redisson 3.52.0's lockAndGetToken, a
// wait without deadline, completes with null and without the lock when the
// JVM's wall clock steps back while it waits (its Long.MAX_VALUE ms wait
// less a negative elapsed time overflows; the library alone:
// impl/drivers/redisson-java/repro/fenced-clock-step.sh). The driver answers
// that lock fail: b never held a's lock, so no reply may say it did, nor
// carry a token (lockcheck asked a token-less grant for the token, and got
// the counter's value: a's). The scoreboard's redisson-fenced broke on
// fair-clock-skew with three owners "granted" token 26 so. On the stepped
// clock, b's next lock waits for a's unlock and gets the next token.
func TestRedissonFencedClockStepBack(t *testing.T) {
	d := redissonDriver(t, "redisson-fenced")
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	clock, err := faults.NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = clock.Close() })
	s := startRedis(t)
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	addr, pass := s.Options().Addr, s.Options().Password

	shimmed := d
	shimmed.Env = append(slices.Clone(d.Env), clock.Env()...)
	a, b := startJVM(t, d), startJVM(t, shimmed)
	a.expect("a: hello", hello(addr, pass, "a"), "ok")
	b.expect("b: hello", hello(addr, pass, "b"), "ok")
	lock := func(to int) map[string]any {
		return map[string]any{"op": "lock", "name": "l", "timeout_ms": to}
	}
	held := a.expect("a: lock", lock(3000), "ok")
	if held.Token == 0 {
		t.Fatal("a's grant carries no token")
	}

	b.send("b: lock while a holds", lock(10000))
	waitSubscribed(ctx, t, rdb, "redisson_lock__channel:{l}")
	clock.Set(-2 * time.Minute)
	if r := b.recv("b: lock while a holds, its clock stepped back 2 min", "fail"); r.Token != 0 {
		t.Errorf("b's reply carries token %d (a holds token %d)", r.Token, held.Token)
	}
	if h := rdb.HGetAll(ctx, "l").Val(); len(h) != 1 {
		t.Fatalf("hash %v: want a's hold alone", h)
	}

	b.send("b: lock again on the stepped clock", lock(10000))
	waitSubscribed(ctx, t, rdb, "redisson_lock__channel:{l}")
	a.expect("a: unlock", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "ok")
	if r := b.recv("b: lock again on the stepped clock", "ok"); r.Token != held.Token+1 {
		t.Errorf("b granted token %d after a's %d: want the next", r.Token, held.Token)
	}
}

// waitSubscribed polls until someone listens on channel (a Redisson waiter
// subscribes before it waits), failing the test at ctx's end.
func waitSubscribed(ctx context.Context, t *testing.T, rdb *redis.Client, channel string) {
	t.Helper()
	for rdb.PubSubNumSub(ctx, channel).Val()[channel] == 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("nobody subscribed to %s: %v", channel, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
