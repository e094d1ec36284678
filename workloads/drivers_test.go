package workloads

import (
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// shipped returns the shipped driver called name, skipping the test with
// the reason when it cannot run here (no node, no python3-redis, npm
// packages not installed: make deps installs them, and CI runs make deps).
func shipped(t *testing.T, name string) Subject {
	t.Helper()
	for _, d := range shippedDrivers() {
		if d.Name != name {
			continue
		}
		dir, err := d.dir()
		if err == nil && d.Installed != nil {
			err = d.Installed(dir)
		}
		if err != nil {
			t.Skipf("driver %s cannot run here: %v", name, err)
		}
		return d.Subject()
	}
	t.Fatalf("no shipped driver %q", name)
	return Subject{}
}

// TestShippedDriversAreValid: each shipped driver passes the default
// workload without faults (its capabilities decide reentry).
func TestShippedDriversAreValid(t *testing.T) {
	s := startRedis(t)
	for _, name := range []string{"node-redisson", "node-redlock", "redis-py"} {
		t.Run(name, func(t *testing.T) {
			shipped(t, name)
			res := run(t, s, RunConfig{Subject: name, Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
			t.Log(summary(res))
			if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 {
				t.Fatalf("%s\n%s", summary(res), res.Report)
			}
		})
	}
}

// TestShippedDriverStallIsDetected: node-redisson's watchdog stops with its
// SIGSTOPped process, so a stall past the lease breaks mutual exclusion.
func TestShippedDriverStallIsDetected(t *testing.T) {
	shipped(t, "node-redisson")
	s := startRedis(t)
	res := stallRun(t, s, "node-redisson", nil)
	if got, ok := res.Report.Result(model.CheckMutualExclusion); !ok || got.Verdict != model.Invalid {
		t.Fatalf("%s: want mutual exclusion broken\n%s", summary(res), res.Report)
	}
}

// TestMixedWithNodeRedisson: the Go reentrant lock and node-redisson share
// Redisson's wire format, so together they are a mutex.
func TestMixedWithNodeRedisson(t *testing.T) {
	shipped(t, "node-redisson")
	s := startRedis(t)
	res := run(t, s, RunConfig{Subject: "reentrant+node-redisson", Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
}

// TestMixedKeyLayouts: the reentrant lock (a hash) and redlock (a string)
// under one name cannot share it: the ops of each that met the other's key
// end with WRONGTYPE, recorded with the implementation that saw it.
func TestMixedKeyLayouts(t *testing.T) {
	shipped(t, "node-redlock")
	s := startRedis(t)
	res := run(t, s, RunConfig{Subject: "reentrant+node-redlock", Workload: DefaultWorkload, Seed: 1, Duration: 4 * time.Second}, Deps{})
	t.Log(summary(res))
	parts := res.History.Header.Parts()
	wrongType := map[string]int{}
	for _, o := range res.History.Ops {
		if strings.Contains(o.Error, "WRONGTYPE") {
			wrongType[model.PartOf(parts, o.Process)]++
		}
	}
	if wrongType["reentrant"] == 0 {
		t.Fatalf("WRONGTYPE errors by part %v: want the reentrant lock to meet redlock's string keys", wrongType)
	}
}
