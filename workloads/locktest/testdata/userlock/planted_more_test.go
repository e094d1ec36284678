package userlock_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"example.com/userlock"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// plantedBugs are the renewed lock with one planted bug each: none has a
// hook for lockcheck's faults (no Freeze, no Abandon); real pauses of its
// process, slow replies and dropped connections reach them.
var plantedBugs = map[string]func(redis.UniversalClient, time.Duration) *userlock.Client{
	"get-then-del":   userlock.NewGetThenDel,
	"set-xx-renewal": userlock.NewSetXX,
	"timeout-grants": userlock.NewTimeoutGrants,
}

// TestPlantedBugs runs Run at its default budget on each planted lock. It
// fails, so it runs only when TestPlantedBugsAreCaught asks for it.
func TestPlantedBugs(t *testing.T) {
	if !*planted {
		t.Skip("fails on purpose: TestPlantedBugsAreCaught runs it (-userlock.planted)")
	}
	for name, open := range plantedBugs {
		t.Run(name, func(t *testing.T) {
			locktest.Run(t, locktest.Lock{
				Name: name, Watchdog: true,
				New: func(_ context.Context, rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
					return open(rdb, lease), nil
				},
			})
		})
	}
}

// TestPlantedBugsAreCaught runs each planted lock's Run in a test binary of
// its own, at Run's default budget (not under -short): each must
// fail with a violation beyond what the fault allows a correct lease lock,
// or a safety violation where no fault allows one. A run is not
// deterministic, so each lock gets up to two tries.
func TestPlantedBugsAreCaught(t *testing.T) {
	if *planted {
		t.Skip("this is the test binary TestPlantedBugsAreCaught runs")
	}
	if testing.Short() {
		t.Skip("runs Run at its default budget, about a minute a lock: make locktest-planted")
	}
	// beyond the fault on an unsafe scenario, or a safety checker where the
	// scenario requires valid
	beyond := regexp.MustCompile(`FAILED scenario [a-z-]+ \(seed \d+, a \S+ run\): .*(fault-allowance|linearizable|mutual-exclusion) invalid, want valid`)
	for name := range plantedBugs {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			start := time.Now()
			text := failsWithin(t, ctx, "^TestPlantedBugs$/^"+name+"$", 2)
			if !beyond.MatchString(text) {
				t.Errorf("%s failed, but not beyond the fault:\n%s", name, text)
			}
			t.Logf("%s: caught in %v", name, time.Since(start).Round(100*time.Millisecond))
		})
	}
}
