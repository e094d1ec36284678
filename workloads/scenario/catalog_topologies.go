package scenario

import (
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// FailoverLease is the watchdog lease of the failover scenarios that hold
// locks across a failover: it must outlive the failover (2–3 s with the
// default SentinelConfig, more on a loaded machine) plus one renewal
// interval (lease/3), so that a lock the replicas did see survives it and
// what goes missing is only what replication lost. With the 1.5 s Lease
// every hold would expire during any failover, and the scenario would
// measure lease expiry instead of replication.
const FailoverLease = 9 * time.Second

// failoverHoldPlan holds the lock for 3–3.5 s at a time (longer than a
// failover, far shorter than FailoverLease; the watchdog renews every 3 s),
// so a holder granted just before the master dies is still inside its
// critical section when the promoted replica grants the lock again.
func failoverHoldPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, Locks: []string{"fo"},
		Hold: workloads.Range{Min: ms(3000), Max: ms(3500)}, Think: workloads.Range{Min: ms(10), Max: ms(50)},
		Counter: true, OpTimeout: 20 * time.Second, LongHolds: true,
	}
}

// idlePlan has quiet periods: short sections, long thinks, so the lock is
// free most of the time.
func idlePlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, Locks: []string{"idle"}, TryLockPercent: 30,
		Wait: workloads.Range{Max: ms(200)}, Hold: workloads.Range{Min: ms(1), Max: ms(20)},
		Think: workloads.Range{Min: ms(100), Max: ms(300)}, Counter: true, OpTimeout: 10 * time.Second,
	}
}

func sentinelWith(pinned int, firewall, prefer bool) Topology {
	return SentinelTopology(SentinelOptions{Pinned: pinned, Firewall: firewall, PreferFirstReplica: prefer})
}

// topologyScenarios are the scenarios on Sentinel, Cluster and RedLock
// topologies.
func topologyScenarios() []Scenario {
	return []Scenario{
		{
			Name: "sentinel-failover-idle", Safe: true,
			Doc: "Sentinel (master, 2 replicas, 3 Sentinels): the master is SIGKILLed at a moment no lock is held; " +
				"sections (≤20 ms) are far shorter than the 2–3 s failover, so no hold the failover loses can meet another",
			Plan: idlePlan(), Duration: 9 * time.Second, Topology: sentinelWith(0, false, false), Skip: skipOnSentinel,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := idleKill(w)
				return []faults.Fault{f}, faults.Schedule{{At: 1500 * time.Millisecond, Duration: 500 * time.Millisecond}}, err
			},
		},
		{
			Name: "cluster-no-faults", Safe: true,
			Doc:  "Redis Cluster (3 masters + 3 replicas), go-redis ClusterClients, the contended workload, no fault: every key of a lock in one slot",
			Plan: contendedPlan(), Duration: 5 * time.Second, Topology: ClusterTopology(faults.ClusterConfig{}),
			Skip: func(s subject.Subject) string {
				switch {
				case needsReplicas(s):
					return "WAIT after a script needs one connection to the master; not wired for ClusterClient"
				case needsAddress(s):
					return skipNeedsAddress
				}
				return DefaultSkip(s)
			},
		},
		{
			Name: "sentinel-failover-held", Safe: false,
			Doc: "Sentinel, async replication: both replicas cut off from the master (nftables), a lock granted meanwhile, " +
				"then the master SIGKILLed: the promoted replica never saw the grant and grants the lock again while the holder's 3 s section goes on (lease 9 s)",
			Plan: failoverHoldPlan(), Duration: 14 * time.Second, WatchdogLease: FailoverLease,
			Topology: sentinelWith(0, true, false), Skip: skipOnSentinel,
			Destroys: destroysCounter,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := laggingFailover(w, 5*time.Second, false)
				return []faults.Fault{f}, faults.Schedule{{At: time.Second, Duration: 500 * time.Millisecond}}, err
			},
			Expect: func(s subject.Subject) (Expect, bool) {
				if needsReplicas(s) || s.SyncsReplicas {
					return Expect{Label: "valid (WAIT refuses grants no replica acknowledged)", Verdict: model.Valid}, true
				}
				return failoverExpect(s)
			},
		},
		{
			Name: "sentinel-failover-wait", Safe: false,
			Doc: "Sentinel with the WAIT-synced locks: only the preferred replica (replica-priority 1) lags; the other acknowledges the WAIT, " +
				"so a grant succeeds, then the master dies and the Sentinels promote the lagging replica (priority before offset): the grant is lost",
			Plan: failoverHoldPlan(), Duration: 14 * time.Second, WatchdogLease: FailoverLease,
			Topology: sentinelWith(0, true, true), Skip: skipOnSentinel,
			Destroys: destroysCounter,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := laggingFailover(w, 5*time.Second, true)
				return []faults.Fault{f}, faults.Schedule{{At: time.Second, Duration: 500 * time.Millisecond}}, err
			},
			Expect: failoverExpect,
		},
		{
			Name: "sentinel-split-brain", Safe: false,
			Doc: "Sentinel: the master frozen (SIGSTOP) for 3.5 s, a replica promoted, then the old master thawed: it stays a writable master " +
				"for seconds, and the two clients pinned to its address (a stale DNS name or VIP) lock there while the others lock on the new master",
			Plan: contendedPlan(), Duration: 9 * time.Second, Topology: sentinelWith(2, false, false), Skip: skipOnSentinel,
			Destroys: destroysCounter,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := splitBrain(w)
				return []faults.Fault{f}, faults.Schedule{{At: 1500 * time.Millisecond, Duration: 3500 * time.Millisecond}}, err
			},
			Expect: func(s subject.Subject) (Expect, bool) {
				switch {
				case needsReplicas(s):
					return Expect{Label: "valid (the thawed master has no replica left to acknowledge a WAIT)", Verdict: model.Valid}, true
				case s.Fair:
					// The thawed master still queues the waiters that moved to
					// the new master; they never poll it again, so the pinned
					// clients wait behind them for threadWaitTime (5 min) and
					// are granted there only when its queue was empty at the
					// pause (2 of 5 seeds in the nightly of issue 8).
					return Expect{Label: "measured (caught only when the thawed master's queue was empty)"}, true
				}
				return failoverExpect(s)
			},
		},
		{
			Name: "redlock-no-faults", Safe: true,
			Doc:  "RedLock on 3 independent nodes (the redlock subject and the drivers of the redlock topology): the contended workload with no fault at all",
			Plan: contendedPlan(), Duration: 5 * time.Second, Topology: RedlockTopology(3), Skip: skipOnNodes,
		},
		{
			Name: "redlock-restart-empty", Safe: false,
			Doc: "RedLock on 3 independent nodes, Kleppmann's counterexample: node 2 unreachable (SIGSTOP, 700 ms) so a grant rests on {0,1}; " +
				"node 1 restarts without persistence and forgets it; node 2 returns and {1,2} grant the lock again (3 times per run)",
			Plan: heldPlan(), Duration: 9 * time.Second, Topology: RedlockTopology(3), Skip: skipOnNodes,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f, err := redlockAmnesia(w, 700*time.Millisecond)
				sched := faults.Schedule{
					{At: time.Second, Duration: 1200 * time.Millisecond},
					{At: 3500 * time.Millisecond, Duration: 1200 * time.Millisecond},
					{At: 6 * time.Second, Duration: 1200 * time.Millisecond},
				}
				return []faults.Fault{f}, sched, err
			},
		},
	}
}

// failoverExpect: the reference locks lose mutual exclusion. The fenced
// lock's token counter lives on the same failed-over master (its INCR is
// lost with the grant, so a token can be issued twice): whether the fenced
// register stays consistent is measured, not assumed — only the
// linearizability verdict is required.
// destroysCounter is what a failover that loses the master's writes, or a
// split brain that forks them, takes from every lock by design: the
// fencing counter lives in the same keyspace as the lock, so the new master
// hands out tokens the lost (or the other) master already gave, as
// restart-no-persistence does (Scenario.Destroys).
var destroysCounter = []string{model.CheckFencing}

func failoverExpect(s subject.Subject) (Expect, bool) {
	if s.Kind != subject.KindReference {
		return Expect{}, false
	}
	return ExpectMutexBroken, true
}
