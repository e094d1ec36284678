package scenario

import (
	"os"
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// slow skips t unless LOCKCHECK_SLOW=1 (the nightly runs these scenarios).
func slow(t *testing.T) {
	t.Helper()
	if os.Getenv("LOCKCHECK_SLOW") != "1" {
		t.Skip("slow topology scenario: set LOCKCHECK_SLOW=1 (lockcheck nightly runs it)")
	}
}

// checkerVerdict returns what checker said in res (or "" if it did not run).
func checkerVerdict(res *workloads.Result, checker string) model.Verdict {
	r, ok := res.Report.Result(checker)
	if !ok {
		return ""
	}
	return r.Verdict
}

func TestClusterNoFaultsValid(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "cluster-no-faults", "reentrant", 1)
	if res.Stats.Granted == 0 {
		t.Fatal("nothing granted on the cluster")
	}
	if res.Stats.Info > 0 {
		t.Fatalf("%d indeterminate ops without faults (CROSSSLOT or routing errors?)", res.Stats.Info)
	}
	expectMet(t, "cluster-no-faults", "reentrant", res)
	if nodes := tracedNodes(t, res); len(nodes) < 2 {
		t.Errorf("the wire trace names nodes %v: want the lock's master and more (the state reloads)", nodes)
	}
}

// tracedNodes fails t unless res has a wire trace whose commands each name
// the server they reached, and returns the servers.
func tracedNodes(t *testing.T, res *workloads.Result) []string {
	t.Helper()
	w := res.CheckOptions.Wire
	if w == nil {
		t.Fatal("no wire trace: every client reaches the servers through a WireSet of its own")
	}
	var nodes []string
	for _, e := range w.Events {
		if e.Kind != model.WireCmd {
			continue
		}
		if e.Node == "" {
			t.Fatalf("%+v names no server", e)
		}
		if !slices.Contains(nodes, e.Node) {
			nodes = append(nodes, e.Node)
		}
	}
	return nodes
}

func TestClusterNoFaultsFair(t *testing.T) {
	slow(t)
	res := runScenario(t, "cluster-no-faults", "fair", 2)
	expectMet(t, "cluster-no-faults", "fair", res)
}

func TestSentinelFailoverHeldDetected(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "sentinel-failover-held", "reentrant", 1)
	if fs := injected(res.History); len(fs) != 1 || fs[0].Name != "sentinel-kill-master" {
		t.Fatalf("fault windows %+v, want one sentinel-kill-master", res.History.Faults)
	}
	expectMet(t, "sentinel-failover-held", "reentrant", res)
	if nodes := tracedNodes(t, res); len(nodes) < 2 {
		t.Errorf("the wire trace names servers %v: want the master and, after the failover, the replica promoted", nodes)
	}
}

// The restart must meet a hold, whose timing a busy machine shifts: a run
// that shows nothing is tried again on the next seed, up to three.
func TestRedlockRestartEmptyDetected(t *testing.T) {
	exp := expectation(t, "redlock-restart-empty", "redlock")
	for seed := int64(1); ; seed++ {
		res := runScenario(t, "redlock-restart-empty", "redlock", seed)
		if len(injected(res.History)) == 0 {
			t.Fatal("no fault window recorded")
		}
		ok, why := exp.Match(res.Report)
		if ok {
			return
		}
		if seed == 3 {
			t.Fatalf("redlock-restart-empty/redlock, seeds 1-3: want %q: %s\n%s", exp.Label, why, res.Report)
		}
		t.Logf("seed %d: %s; the next seed", seed, why)
	}
}

// TestRedlockNoFaultsValid: the redlock subject runs on the scenario's three
// nodes (bound by Env.registry through Registry.OnNodes), and a subject of
// one Redis is skipped there.
func TestRedlockNoFaultsValid(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	sc, err := Lookup("redlock-no-faults")
	if err != nil {
		t.Fatal(err)
	}
	reentrant, err := catalog.Subjects.Lookup("reentrant")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Expectation(reentrant).Skip == "" {
		t.Fatal("redlock-no-faults does not skip the reentrant lock")
	}
	res := runScenario(t, "redlock-no-faults", "redlock", 1)
	if res.Stats.Granted == 0 {
		t.Fatal("nothing granted on the three nodes")
	}
	if nodes := tracedNodes(t, res); len(nodes) != 3 {
		t.Errorf("the wire trace names nodes %v: want all three (each RedLock client dials every node)", nodes)
	}
	expectMet(t, "redlock-no-faults", "redlock", res)
}

func TestSentinelFailoverIdleValid(t *testing.T) {
	slow(t)
	res := runScenario(t, "sentinel-failover-idle", "fair", 1)
	expectMet(t, "sentinel-failover-idle", "fair", res)
}

func TestSentinelSplitBrainDetected(t *testing.T) {
	slow(t)
	res := runScenario(t, "sentinel-split-brain", "reentrant", 1)
	expectMet(t, "sentinel-split-brain", "reentrant", res)
}

func TestSentinelWaitScenarios(t *testing.T) {
	slow(t)
	for _, c := range []struct{ scenario, subject string }{
		{"sentinel-failover-held", "reentrant-wait"},
		{"sentinel-failover-wait", "reentrant-wait"},
		{"sentinel-failover-wait", "fenced"},
	} {
		t.Run(c.scenario+"/"+c.subject, func(t *testing.T) {
			res := runScenario(t, c.scenario, c.subject, 1)
			t.Logf("mutex %s, fencing %s", checkerVerdict(res, model.CheckMutualExclusion), checkerVerdict(res, model.CheckFencing))
			expectMet(t, c.scenario, c.subject, res)
		})
	}
}

// TestRedlockDriverIsTraced: a RedLock whose clients run in processes of
// their own (the rslock driver, which make deps builds) is handed its
// proxies' addresses, so its run on the redlock topology has a wire trace
// of all three nodes too.
func TestRedlockDriverIsTraced(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "redlock-no-faults", "rslock-3", 2)
	if res.Stats.Granted == 0 {
		t.Fatalf("nothing granted (warnings %q)\n%s", res.Warnings, res.Report)
	}
	if nodes := tracedNodes(t, res); len(nodes) != 3 {
		t.Errorf("the wire trace names nodes %v: want all three", nodes)
	}
}
