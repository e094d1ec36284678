package impl

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// serverCommands is the number of commands the server ran so far, those
// called by scripts included (INFO commandstats), and of those the scripts
// (EVALSHA, EVAL).
func serverCommands(t testing.TB, rdb *redis.Client) (all, scripts int64) {
	t.Helper()
	info, err := rdb.InfoMap(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range info["Commandstats"] {
		calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
		c, err := strconv.ParseInt(calls, 10, 64)
		if err != nil {
			t.Fatalf("commandstats %q: %v", v, err)
		}
		all += c
		if name == "cmdstat_evalsha" || name == "cmdstat_eval" {
			scripts += c
		}
	}
	return all, scripts
}

// An uncontended reentrant lock/unlock cycle costs the server 10 commands:
// the acquire script (EVALSHA, EXISTS, HINCRBY, PEXPIRE) and the unlock
// script (EVALSHA, GET of the latch, HGET, DEL, PUBLISH, SET of the latch),
// and no request after it (the latch expires instead of being deleted).
// A fair cycle costs 17 (the queue checks and purges, 8 more, and no
// PUBLISH with nobody queued).
func TestReentrantCycleCommands(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, _ := newTestClient(t, s)
	stats := redistest.Client(t, s)
	ctx := ctxT(t)
	for _, tc := range []struct {
		lock Locker
		max  float64
	}{{c.Reentrant("cost", "o"), 10}, {c.Fair("cost-fair", "o"), 17}} {
		lock := tc.lock
		if err := lock.Lock(ctx, time.Minute); err != nil { // loads the scripts
			t.Fatal(err)
		}
		if err := lock.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		const cycles = 50
		before, _ := serverCommands(t, stats)
		for range cycles {
			if err := lock.Lock(ctx, time.Minute); err != nil {
				t.Fatal(err)
			}
			if err := lock.Unlock(ctx); err != nil {
				t.Fatal(err)
			}
		}
		// A background request would come within a moment; the INFO
		// calls themselves count one each.
		time.Sleep(100 * time.Millisecond)
		after, _ := serverCommands(t, stats)
		got := float64(after-before-1) / cycles
		t.Logf("%T: %.2f commands per cycle", lock, got)
		if got > tc.max {
			t.Errorf("%T: a cycle costs %.2f server commands; want at most %v", lock, got, tc.max)
		}
	}
}
