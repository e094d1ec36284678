package workloads

import (
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// rwEvidence checks that a read-write run did what it is for: reads and
// writes granted, downgrades (a read granted to a process holding the
// write side), and read sections of different processes overlapping.
func rwEvidence(t *testing.T, h *model.History) {
	t.Helper()
	var reads, writes, downgrades, shared int
	writing := map[int]bool{}
	var open []model.Op // read sections seen, for overlaps
	for _, o := range h.Ops {
		switch {
		case o.Kind == model.Acquire && o.Outcome == model.OK && o.Mode == impl.ModeRead:
			reads++
			if writing[o.Process] {
				downgrades++
			}
		case o.Kind == model.Acquire && o.Outcome == model.OK && o.Mode == impl.ModeWrite:
			writes++
			writing[o.Process] = true
		case o.Kind == model.Release && o.Mode == impl.ModeWrite:
			writing[o.Process] = false
		case o.Kind == model.Section && o.Mode == impl.ModeRead:
			for _, p := range open {
				if p.Process != o.Process && o.Call < p.Return && p.Call < o.Return {
					shared++
					break
				}
			}
			open = append(open, o)
		}
	}
	t.Logf("%d read grants, %d write grants, %d downgrades, %d read sections overlapping another's", reads, writes, downgrades, shared)
	if reads == 0 || writes == 0 || downgrades == 0 || shared == 0 {
		t.Fatal("want read and write grants, downgrades and overlapping readers")
	}
}

// The read-write locks pass the default workload without faults, with
// shared reads, writes and downgrades.
func TestRWLockSubjectsAreValid(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	s := startRedis(t)
	for _, name := range []string{"rwlock", "redisson-rwlock"} {
		t.Run(name, func(t *testing.T) {
			if name != "rwlock" {
				shipped(t, name)
			}
			res := run(t, s, RunConfig{Subject: name, Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
			t.Log(summary(res))
			if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 {
				t.Fatalf("%s: want valid, with grants\n%s", summary(res), res.Report)
			}
			rwEvidence(t, res.History)
		})
	}
}

// TestRedissonRWMixedFleet: lockcheck's read-write port and Redisson's
// RReadWriteLock on the same lock names: readers of both share, writers
// exclude both, and each hands the lock to the other.
func TestRedissonRWMixedFleet(t *testing.T) {
	// Not parallel: its hand-offs between the two sides need both to keep
	// up, which a JVM beside other runs did not (0 hand-offs one way once).
	const mix = "rwlock+redisson-rwlock"
	shipped(t, strings.Split(mix, "+")[1])
	s := startRedis(t)
	res := run(t, s, RunConfig{Subject: mix, Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
	rwEvidence(t, res.History)
	for _, p := range results.ComputeParts(res.History) {
		t.Logf("%s: %d grants, %d hand-offs in (p50 %v)", p.Subject, p.Acquires.OK, p.HandoffsIn, p.HandoffP50)
		if p.Acquires.OK == 0 || p.HandoffsIn == 0 {
			t.Errorf("%s: %d grants, %d hand-offs from the other side: want both", p.Subject, p.Acquires.OK, p.HandoffsIn)
		}
	}
}
