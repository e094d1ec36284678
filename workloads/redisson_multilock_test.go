package workloads

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// The multilock subjects: the Go ports (impl.MultiLock) and Redisson's
// RedissonMultiLock and RedissonRedLock through the Java driver.

// TestMultiLockSubjectsAreValid: each multilock passes the default workload
// without faults, and the multilock's ops name its other members.
func TestMultiLockSubjectsAreValid(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	s := startRedis(t)
	for _, name := range []string{"multilock", "multilock-redlock", "redisson-multilock", "redisson-redlock"} {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(name, "redisson") {
				shipped(t, name)
			}
			res := run(t, s, RunConfig{Subject: name, Workload: DefaultWorkload, Seed: 1, Duration: driverValidRun}, Deps{})
			t.Log(summary(res))
			if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 {
				t.Fatalf("%s: want valid, with grants\n%s", summary(res), res.Report)
			}
			also := 0
			for _, o := range res.History.Ops {
				if o.Also != "" {
					also++
				}
			}
			if wantAlso := !strings.HasSuffix(name, "redlock"); (also > 0) != wantAlso {
				t.Errorf("%d ops name other members; want some: %v", also, wantAlso)
			}
		})
	}
}

// TestMultiLockMixedFleets: a multilock and a plain RLock on its first
// member's key exclude each other and hand the lock over both ways, across
// implementations: the Go multilock with real Redisson's RLock, Redisson's
// multilock with the Go RLock, and the two multilocks together.
func TestMultiLockMixedFleets(t *testing.T) {
	// Not parallel: its hand-offs between the two sides need both to keep
	// up, which a JVM beside other runs did not (0 hand-offs one way once).
	s := startRedis(t)
	for _, mix := range []string{"multilock+redisson", "redisson-multilock+reentrant", "multilock+redisson-multilock"} {
		t.Run(mix, func(t *testing.T) { checkMixedFleet(t, s, mix) })
	}
}

// checkMixedFleet runs the default workload on the mixed fleet mix (seed
// 1, 4 s; its Redisson parts skip when not built) and fails t unless every
// checker but the unjudged ones finds it valid, and every part was granted
// the lock and handed it over from another. An unjudged checker still runs
// and its verdict is logged.
func checkMixedFleet(t *testing.T, s *faults.Server, mix string, unjudged ...string) {
	for _, part := range strings.Split(mix, "+") {
		if strings.HasPrefix(part, "redisson") {
			shipped(t, part)
		}
	}
	res := run(t, s, RunConfig{Subject: mix, Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
	t.Log(summary(res))
	for _, r := range res.Report.Results {
		switch {
		case slices.Contains(unjudged, r.Checker):
			t.Logf("%s (not judged on this fleet): %s", r.Checker, r.Verdict)
		case r.Verdict != model.Valid:
			t.Fatalf("%s\n%s", summary(res), res.Report)
		}
	}
	for _, p := range results.ComputeParts(res.History) {
		t.Logf("%s: %d grants, %d hand-offs in (p50 %v)", p.Subject, p.Acquires.OK, p.HandoffsIn, p.HandoffP50)
		if p.Acquires.OK == 0 || p.HandoffsIn == 0 {
			t.Errorf("%s: %d grants, %d hand-offs from the other side: want both", p.Subject, p.Acquires.OK, p.HandoffsIn)
		}
	}
}
