package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// remoteFlags name an existing deployment (besides --redis) and the tools
// lockcheck reaches it with. Passwords come from the environment, never
// from a flag: LOCKCHECK_REDIS_PASSWORD for the data nodes (Sentinel,
// Cluster, and --redis when its URL carries none) and
// LOCKCHECK_SENTINEL_PASSWORD for the Sentinels.
type remoteFlags struct {
	sentinel     string
	master       string
	cluster      string
	toxiproxy    string
	toxiListen   string
	redlockNodes string
}

func (r *remoteFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&r.sentinel, "sentinel", "", "use an existing Sentinel deployment: comma-separated Sentinel host:port (with --master)")
	fs.StringVar(&r.master, "master", "", "the master name the Sentinels monitor (with --sentinel)")
	fs.StringVar(&r.cluster, "cluster", "", "use an existing Redis Cluster: comma-separated seed nodes host:port")
	fs.StringVar(&r.toxiproxy, "toxiproxy", "", "toxiproxy server API host:port for network faults on a --redis deployment (one proxy per client)")
	fs.StringVar(&r.toxiListen, "toxiproxy-listen", "", "host the toxiproxy proxies listen on, as lockcheck reaches it (default: the --toxiproxy host)")
	fs.StringVar(&r.redlockNodes, "redlock-nodes", "", "comma-separated host:port of the independent nodes the redlock subject runs on")
}

// given reports whether a deployment other than lockcheck's own was named.
func (r *remoteFlags) given(redisURL string) bool {
	return redisURL != "" || r.sentinel != "" || r.cluster != ""
}

// deployment turns the flags into a scenario.Remote (usage errors for
// contradictions).
func (r *remoteFlags) deployment(redisURL string) (scenario.Remote, error) {
	var rem scenario.Remote
	n := 0
	for _, s := range []string{redisURL, r.sentinel, r.cluster} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1:
		return rem, usagef("--redis, --sentinel and --cluster exclude each other")
	case (r.sentinel == "") != (r.master == ""):
		return rem, usagef("--sentinel and --master go together")
	case r.toxiproxy != "" && redisURL == "":
		return rem, usagef("--toxiproxy needs --redis (the proxies forward to one Redis)")
	}
	pw := os.Getenv(envRedisPassword)
	timeouts := func() (time.Duration, time.Duration) { return 2 * time.Second, time.Second }
	dial, rw := timeouts()
	switch {
	case redisURL != "":
		a, err := parseRedisFlag(redisURL)
		if err != nil {
			return rem, err
		}
		rem.Redis, rem.Desc = a.Options(), a.Redacted()
	case r.sentinel != "":
		addrs := splitList(r.sentinel)
		rem.Sentinel = &redis.FailoverOptions{
			MasterName: r.master, SentinelAddrs: addrs, Password: pw,
			SentinelPassword: os.Getenv(envSentinelPassword),
			DialTimeout:      dial, ReadTimeout: rw, WriteTimeout: rw,
		}
		rem.Desc = fmt.Sprintf("Sentinel master %q via %s", r.master, strings.Join(addrs, ","))
	case r.cluster != "":
		addrs := splitList(r.cluster)
		rem.Cluster = &redis.ClusterOptions{
			Addrs: addrs, Password: pw, ClusterStateReloadInterval: time.Second,
			DialTimeout: dial, ReadTimeout: rw, WriteTimeout: rw,
		}
		rem.Desc = "Redis Cluster via " + strings.Join(addrs, ",")
	}
	rem.Toxiproxy, rem.ToxiproxyListenHost = r.toxiproxy, r.toxiListen
	return rem, nil
}

// registry returns the subject registry of a run: the default one, with
// the subjects of the redlock topology bound to --redlock-nodes when given.
func (r *remoteFlags) registry() (*subject.Registry, error) {
	nodes := splitList(r.redlockNodes)
	if len(nodes) == 0 {
		return catalog.Subjects, nil
	}
	return catalog.Subjects.OnNodes(nodes, os.Getenv(envRedisPassword))
}

// openRemoteTarget opens a target on a Sentinel or Cluster deployment (a
// --redis one goes through openTarget).
func openRemoteTarget(ctx context.Context, rem scenario.Remote, clients int) (*target.Target, error) {
	env, err := rem.Topology()(ctx, clients)
	if err != nil {
		return nil, err
	}
	return target.FromEnv(env), nil
}

// openTarget opens the Redis of a plain run: lockcheck's own redis-server,
// --redis, --sentinel or --cluster; the redlock subject is bound to
// --redlock-nodes.
func (f *runFlags) openTarget(ctx context.Context, persistence faults.Persistence) (*target.Target, error) {
	reg, err := f.remote.registry()
	if err != nil {
		return nil, usageError{err}
	}
	rem, err := f.remote.deployment(f.redis)
	if err != nil {
		return nil, err
	}
	var tgt *target.Target
	if rem.Sentinel != nil || rem.Cluster != nil {
		tgt, err = openRemoteTarget(ctx, rem, f.clients) // their Dial ignores the client index
	} else {
		tgt, err = openTarget(ctx, f.redis, persistence)
	}
	if err != nil {
		return nil, err
	}
	tgt.Registry = reg
	return tgt, nil
}

// lookupScenario resolves --scenario: a catalog scenario on lockcheck's own
// topology, or, when a deployment is named, a remote scenario bound to it.
func (f *runFlags) lookupScenario() (scenario.Scenario, error) {
	if !f.remote.given(f.redis) {
		sc, err := scenario.Lookup(f.scenario)
		if err != nil {
			if _, rerr := scenario.RemoteScenario(f.scenario, scenario.Remote{Redis: &redis.Options{}}); rerr == nil {
				return sc, usagef("--scenario %s runs against an existing deployment: give --redis, --sentinel or --cluster", f.scenario)
			}
			return sc, usagef("--scenario: %v", err)
		}
		return sc, nil
	}
	rem, err := f.remote.deployment(f.redis)
	if err != nil {
		return scenario.Scenario{}, err
	}
	sc, err := scenario.RemoteScenario(f.scenario, rem)
	if err != nil {
		return sc, usagef("--scenario with a deployment given by address: %v", err)
	}
	return sc, nil
}
