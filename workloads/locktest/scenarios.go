package locktest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// runLength is how long one run of a scenario lasts under -short and
// otherwise (0: the scenario is not run in that mode). Each is long enough
// for the scenario's faults to strike at least once. Scenarios of the
// catalog that are not here are not run (notHere says why, for most).
var runLength = map[string]struct {
	short, full time.Duration
	runs        int // how many runs its share of the budget buys
}{
	"no-faults":           {2 * time.Second, 2 * time.Second, 1},
	"partition-short":     {3 * time.Second, 3 * time.Second, 1},
	"latency-short":       {0, 3 * time.Second, 1},
	"redis-pause-short":   {0, 3 * time.Second, 1},
	"restart-aof-always":  {0, 3 * time.Second, 1},
	"client-crash":        {0, 3 * time.Second, 1},
	"clock-strobe":        {0, 3 * time.Second, 1},
	"clock-jump-backward": {0, 7 * time.Second, 1},
	// unsafe: nothing may go beyond the fault's allowance
	"client-stall":           {5 * time.Second, 5 * time.Second, 1}, // stalled from 1 s to 4.5 s
	"restart-no-persistence": {0, 3 * time.Second, 1},
	"partition-long":         {0, 4 * time.Second, 1}, // black-holed from 0.5 s to 3.5 s
	"clock-jump-forward":     {0, 3 * time.Second, 1},
	// watchdog, release and timeout triggers: short runs, several of them
	"process-pause":    {6 * time.Second, 6 * time.Second, 3}, // one or two pauses of 2–2.5 s a run, landed where the seed says
	"slow-reply":       {0, 6 * time.Second, 3},
	"renewal-refused":  {0, 6 * time.Second, 2},
	"client-conn-kill": {0, 9 * time.Second, 2}, // sections of 4–5 s: two or three kills a run
	// against $LOCKCHECK_REDIS
	"remote-no-faults":    {time.Second, 2 * time.Second, 1},
	"remote-client-pause": {0, 3 * time.Second, 1},
	"remote-client-kill":  {0, 3 * time.Second, 1},
}

// notHere says why a scenario of the catalog is not run here.
var notHere = map[string]string{
	"sentinel-failover-idle":   "needs a master, replicas and Sentinels: `lockcheck nightly` runs it",
	"sentinel-failover-held":   "its 14 s runs on a master, 2 replicas and 3 Sentinels (nftables between them) do not fit Run's budget: `lockcheck nightly` and Hunt run it",
	"sentinel-failover-wait":   "its 14 s runs on a master, 2 replicas and 3 Sentinels (nftables between them) do not fit Run's budget: `lockcheck nightly` and Hunt run it",
	"sentinel-split-brain":     "its 9 s runs on a master, 2 replicas and 3 Sentinels do not fit Run's budget: `lockcheck nightly` and Hunt run it",
	"cluster-no-faults":        "needs a Redis Cluster: `lockcheck nightly` runs it",
	"clock-drift":              "clock-jump-forward stands for a server clock that runs ahead within Run's budget: Hunt runs it",
	"redis-pause-long-hold":    "its runs of 3–3.5 s sections take 8 s and more, too long for Run's budget: Hunt runs it",
	"client-stall-long-hold":   "its runs of 2–2.5 s sections take 10 s and more, too long for Run's budget: Hunt runs it",
	"fair-clock-skew":          "skews client clocks, which only lockcheck's own locks and driver processes take",
	"remote-debug-sleep":       "needs DEBUG enabled on the server (enable-debug-command)",
	"remote-partition-short":   "needs a toxiproxy server on the path to Redis",
	"remote-sentinel-failover": "needs a Sentinel deployment; $LOCKCHECK_REDIS names one Redis",
	"remote-cluster-failover":  "needs a Redis Cluster; $LOCKCHECK_REDIS names one Redis",
}

// needsShim are the scenarios whose redis-server runs through the clock shim.
var needsShim = map[string]bool{"clock-strobe": true, "clock-jump-backward": true, "clock-jump-forward": true}

// planned is a scenario locktest runs, with the length of its runs and
// what each must show.
type planned struct {
	sc   scenario.Scenario
	run  time.Duration
	runs int // runs its share of the budget buys (runLength's), at least 1
	req  scenario.Requirement
}

// pick returns the scenarios that fit subject, in catalog order (the
// must-pass ones first, then the unsafe ones), with their run lengths for
// the mode, and why each other scenario is left out. only, if not empty,
// names the scenarios to run. remote, if set, is the deployment of
// $LOCKCHECK_REDIS.
func pick(ctx context.Context, subject subject.Subject, short bool, only []string, remote *scenario.Remote) ([]planned, []string) {
	catalog := scenario.Catalog()
	if remote != nil {
		catalog = scenario.RemoteCatalog()
	}
	var run []planned
	var skipped []string
	shim := sync.OnceValue(func() error { return shimState(ctx) })
	for _, sc := range catalog {
		if len(only) > 0 && !slices.Contains(only, sc.Name) {
			continue
		}
		why := sc.Fits(subject)
		l, known := runLength[sc.Name]
		d := l.full
		if short {
			d = l.short
		}
		switch {
		case why != "":
		case !known && notHere[sc.Name] != "":
			why = notHere[sc.Name]
		case !known:
			why = "not among Run's scenarios (a topology Run does not start, or runs too long for its budget): `lockcheck nightly` and Hunt run it"
		case needsShim[sc.Name] && (d > 0 || len(only) > 0) && shim() != nil:
			why = shim().Error()
		case d == 0 && len(only) == 0:
			why = "not under -short"
		}
		if why != "" {
			skipped = append(skipped, fmt.Sprintf("%s (%s)", sc.Name, why))
			continue
		}
		if d == 0 {
			d = l.full
		}
		if remote != nil {
			sc, _ = scenario.RemoteScenario(sc.Name, *remote)
		}
		run = append(run, planned{sc: sc, run: d, runs: l.runs, req: sc.Require(subject)})
	}
	return run, skipped
}

// shimState says why the clock shim cannot be used here (nil: it can).
func shimState(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := faults.ShimPath(ctx)
	return err
}
