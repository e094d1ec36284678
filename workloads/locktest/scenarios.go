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
// for the scenario's faults to strike at least once. Must-pass scenarios of
// the catalog that are not here need a topology locktest does not start.
var runLength = map[string]struct{ short, full time.Duration }{
	"no-faults":           {time.Second, 2 * time.Second},
	"partition-short":     {3 * time.Second, 3 * time.Second},
	"latency-short":       {0, 3 * time.Second},
	"redis-pause-short":   {0, 3 * time.Second},
	"restart-aof-always":  {0, 3 * time.Second},
	"client-crash":        {0, 3 * time.Second},
	"clock-strobe":        {0, 3 * time.Second},
	"clock-jump-backward": {0, 7 * time.Second},
	// against $LOCKCHECK_REDIS
	"remote-no-faults":    {time.Second, 2 * time.Second},
	"remote-client-pause": {0, 3 * time.Second},
	"remote-client-kill":  {0, 3 * time.Second},
}

// notHere says why a must-pass scenario of the catalog is not run here.
var notHere = map[string]string{
	"sentinel-failover-idle": "needs a master, replicas and Sentinels: `lockcheck nightly` runs it",
	"cluster-no-faults":      "needs a Redis Cluster: `lockcheck nightly` runs it",
	"fair-clock-skew":        "skews client clocks, which only lockcheck's own locks and driver processes take",
	"remote-debug-sleep":     "needs DEBUG enabled on the server (enable-debug-command)",
	"remote-partition-short": "needs a toxiproxy server on the path to Redis",
}

// needsShim are the scenarios whose redis-server runs through the clock shim.
var needsShim = map[string]bool{"clock-strobe": true, "clock-jump-backward": true}

// planned is a scenario locktest runs, with the length of its runs.
type planned struct {
	sc  scenario.Scenario
	run time.Duration
}

// pick returns the must-pass scenarios that fit subject, in catalog order,
// with their run lengths for the mode, and why each other must-pass
// scenario is left out. only, if not empty, names the scenarios to run.
// remote, if set, is the deployment of $LOCKCHECK_REDIS.
func pick(ctx context.Context, subject subject.Subject, short bool, only []string, remote *scenario.Remote) ([]planned, []string) {
	catalog := scenario.Catalog()
	if remote != nil {
		catalog = scenario.RemoteCatalog()
	}
	var run []planned
	var skipped []string
	shim := sync.OnceValue(func() error { return shimState(ctx) })
	for _, sc := range catalog {
		if !sc.Safe || (len(only) > 0 && !slices.Contains(only, sc.Name)) {
			continue
		}
		why := ""
		l, known := runLength[sc.Name]
		d := l.full
		if short {
			d = l.short
		}
		switch {
		case sc.Expectation(subject).Skip != "":
			why = sc.Expectation(subject).Skip
		case !known && notHere[sc.Name] != "":
			why = notHere[sc.Name]
		case !known:
			why = "needs a topology locktest does not start: `lockcheck nightly` runs it"
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
		run = append(run, planned{sc: sc, run: d})
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
