package scenario

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ErrNotRemote is returned by RemoteScenario for a scenario that does not
// run against a deployment given by address.
var ErrNotRemote = errors.New("not a remote scenario")

// RemoteCatalog returns the scenarios that run against an existing
// deployment (see Remote), unbound: their Topology and Faults need one, so
// pass them through RemoteScenario. Their faults are Redis commands (or a
// toxiproxy server), never a shell on the Redis machines.
func RemoteCatalog() []Scenario {
	return remoteScenarios(Remote{})
}

// RemoteNames lists RemoteCatalog's names.
func RemoteNames() []string {
	var out []string
	for _, sc := range RemoteCatalog() {
		out = append(out, sc.Name)
	}
	return out
}

// RemoteScenario returns the remote scenario called name bound to r.
func RemoteScenario(name string, r Remote) (Scenario, error) {
	if err := r.Validate(); err != nil {
		return Scenario{}, err
	}
	for _, sc := range remoteScenarios(r) {
		if sc.Name == name {
			return sc, nil
		}
	}
	return Scenario{}, fmt.Errorf("%w: %q (remote scenarios: %v)", ErrNotRemote, name, RemoteNames())
}

// measured is the expectation of a scenario whose outcome depends on the
// deployment (a failover loses a grant only if it was not replicated yet).
func measured(subject.Subject) (Expect, bool) {
	return Expect{Label: "measured (async replication may lose a grant)"}, true
}

func remoteScenarios(r Remote) []Scenario {
	top := r.Topology()
	// short draws 0.5–0.9 s faults among n, separated by 0.5–1 s of quiet.
	short := func(w World, n int) (faults.Schedule, error) {
		return faults.RandomSchedule(w.Rand, faults.RandomConfig{
			Faults: n, Total: w.Duration - time.Second,
			Quiet: faults.Range{Min: ms(500), Max: ms(1000)}, Duration: faults.Range{Min: ms(500), Max: ms(900)},
		})
	}
	return append([]Scenario{
		{
			Name: "remote-no-faults", Safe: true, Doc: "the contended workload against the given deployment, no fault",
			Plan: contendedPlan(), Duration: 5 * time.Second, Topology: top,
		},
		{
			Name: "remote-client-pause", Safe: true,
			Doc:  "CLIENT PAUSE ALL for 0.5–0.9 s (shorter than the 1.5 s lease) on the master(s), repeatedly",
			Plan: contendedPlan(), Duration: 6 * time.Second, Topology: top,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f := onMasters(r, "client-pause", func(a *faults.Admin) faults.Fault { return a.ClientPause(faults.PauseAll, 900*time.Millisecond) })
				s, err := short(w, 1)
				return []faults.Fault{f}, s, err
			},
		},
		{
			Name: "remote-debug-sleep", Safe: true,
			Doc:  "DEBUG SLEEP 0.7 s on the master(s), shorter than the lease (the server must allow DEBUG: enable-debug-command)",
			Plan: contendedPlan(), Duration: 6 * time.Second, Topology: top,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				f := onMasters(r, "debug-sleep", func(a *faults.Admin) faults.Fault { return a.DebugSleep(700 * time.Millisecond) })
				s, err := short(w, 1)
				return []faults.Fault{f}, s, err
			},
		},
		{
			Name: "remote-client-kill", Safe: true,
			Doc:  "CLIENT KILL TYPE normal and pubsub on the master(s): every lock connection and subscription dropped, repeatedly",
			Plan: contendedPlan(), Duration: 6 * time.Second, Topology: top,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				kn := onMasters(r, "client-kill-normal", func(a *faults.Admin) faults.Fault { return a.ClientKill("normal") })
				kp := onMasters(r, "client-kill-pubsub", func(a *faults.Admin) faults.Fault { return a.ClientKill("pubsub") })
				s, err := short(w, 2)
				return []faults.Fault{kn, kp}, s, err
			},
		},
		{
			Name: "remote-partition-short", Safe: true,
			Doc:  "silent black holes (0.5–1 s) on one client's path at a time, through the toxiproxy server (--toxiproxy)",
			Plan: contendedPlan(), Duration: 6 * time.Second, Topology: top,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				if len(w.Env.Links) == 0 {
					return nil, nil, errors.New("scenario: remote-partition-short needs a toxiproxy server (--toxiproxy) and a single Redis")
				}
				s, err := networkSchedule(w, len(w.Env.Links))
				return perLink(w, faults.BlackHole), s, err
			},
		},
		{
			Name: "remote-sentinel-failover", Safe: false,
			Doc:  "SENTINEL FAILOVER (forced, no agreement needed) while the contended workload runs: grants not yet replicated are lost",
			Plan: contendedPlan(), Duration: 8 * time.Second, Topology: top, Expect: measured,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				if r.Sentinel == nil || len(r.Sentinel.SentinelAddrs) == 0 {
					return nil, nil, errors.New("scenario: remote-sentinel-failover needs --sentinel ADDRS --master NAME")
				}
				so := &redis.Options{Addr: r.Sentinel.SentinelAddrs[0], Username: r.Sentinel.SentinelUsername, Password: r.Sentinel.SentinelPassword,
					TLSConfig: r.Sentinel.TLSConfig, DialTimeout: 2 * time.Second, ContextTimeoutEnabled: true}
				return []faults.Fault{faults.SentinelFailover(so, r.Sentinel.MasterName)}, faults.Schedule{{At: 2 * time.Second, Duration: time.Second}}, nil
			},
		},
		{
			Name: "remote-cluster-failover", Safe: false,
			Doc:  "CLUSTER FAILOVER on a replica (coordinated) while the contended workload runs",
			Plan: contendedPlan(), Duration: 8 * time.Second, Topology: top, Expect: measured,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				if r.Cluster == nil {
					return nil, nil, errors.New("scenario: remote-cluster-failover needs --cluster ADDRS")
				}
				var cur faults.Fault
				f := faults.Func("cluster-failover", "a replica drawn from the seed", func(ctx context.Context) error {
					reps, err := clusterReplicas(ctx, r.Cluster)
					if err != nil {
						return err
					}
					cur = faults.ClusterFailover(reps[w.Rand.IntN(len(reps))], faults.FailoverCoordinated)
					return cur.Start(ctx)
				}, func(ctx context.Context) error {
					if cur == nil {
						return nil
					}
					return cur.Stop(ctx)
				})
				return []faults.Fault{f}, faults.Schedule{{At: 2 * time.Second, Duration: time.Second}}, nil
			},
		},
	}, remoteClockScenarios(top)...)
}

// onMasters applies the Admin fault mk to every master of r (resolved when
// the fault starts, so a failed-over master is followed).
func onMasters(r Remote, name string, mk func(*faults.Admin) faults.Fault) faults.Fault {
	var admins []*faults.Admin
	var started []faults.Fault
	return faults.Func(name, "master(s)",
		func(ctx context.Context) error {
			opts, err := r.masters(ctx)
			if err != nil {
				return err
			}
			for _, o := range opts {
				a := faults.NewAdmin(o)
				admins = append(admins, a)
				f := mk(a)
				if err := f.Start(ctx); err != nil {
					return err
				}
				started = append(started, f)
			}
			return nil
		},
		func(ctx context.Context) error {
			var errs []error
			for _, f := range started {
				errs = append(errs, f.Stop(ctx))
			}
			for _, a := range admins {
				errs = append(errs, a.Close())
			}
			admins, started = nil, nil
			return errors.Join(errs...)
		})
}

// masters returns the options of every master of r.
func (r Remote) masters(ctx context.Context) ([]*redis.Options, error) {
	if r.Cluster == nil {
		o, err := r.masterOptions(ctx)
		if err != nil {
			return nil, err
		}
		return []*redis.Options{o}, nil
	}
	return clusterNodes(ctx, r.Cluster, true)
}

func clusterReplicas(ctx context.Context, co *redis.ClusterOptions) ([]*redis.Options, error) {
	reps, err := clusterNodes(ctx, co, false)
	if err == nil && len(reps) == 0 {
		err = errors.New("scenario: the cluster has no replica to fail over to")
	}
	return reps, err
}

// clusterNodes lists the masters (or replicas) of the cluster co reaches,
// sorted by address.
func clusterNodes(ctx context.Context, co *redis.ClusterOptions, masters bool) ([]*redis.Options, error) {
	o := *co
	o.MaxRetries = -1
	c := redis.NewClusterClient(&o)
	defer c.Close()
	var mu sync.Mutex
	var addrs []string
	collect := func(_ context.Context, n *redis.Client) error { // called concurrently
		mu.Lock()
		defer mu.Unlock()
		addrs = append(addrs, n.Options().Addr)
		return nil
	}
	var err error
	if masters {
		err = c.ForEachMaster(ctx, collect)
	} else {
		err = c.ForEachSlave(ctx, collect)
	}
	if err != nil {
		return nil, err
	}
	sort.Strings(addrs)
	out := make([]*redis.Options, len(addrs))
	for i, a := range addrs {
		out[i] = &redis.Options{Addr: a, Username: co.Username, Password: co.Password, TLSConfig: co.TLSConfig,
			MaxRetries: -1, ContextTimeoutEnabled: true, DialTimeout: 2 * time.Second}
	}
	return out, nil
}
