package main

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// target is the Redis a run talks to: a redis-server lockcheck started, or an
// existing one the user named with --redis.
type target struct {
	server *faults.Server    // nil for an existing Redis
	addr   *faults.RedisAddr // nil for our own server
	opts   func() *redis.Options
	desc   string // safe to print: never holds a password
	// env, if set, is a Sentinel or Cluster deployment (remote.go): it
	// dials the clients and is closed with the target.
	env *scenario.Env
	// registry resolves subjects (nil: catalog.Subjects).
	registry *subject.Registry
	// cutters cut the connections of the clients dial made.
	cutters faults.Cutters
}

// openTarget starts a redis-server (redisURL == "") or connects to redisURL
// and checks that it answers.
func openTarget(ctx context.Context, redisURL string, persistence faults.Persistence) (*target, error) {
	if redisURL == "" {
		s, err := faults.StartServer(ctx, faults.ServerConfig{Persistence: persistence})
		if err != nil {
			return nil, err
		}
		return &target{server: s, opts: s.Options, desc: "redis-server " + s.Addr() + " (started by lockcheck, persistence " + string(persistence) + ")"}, nil
	}
	a, err := parseRedisFlag(redisURL)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rdb, err := a.Connect(pctx)
	if err != nil {
		return nil, fmt.Errorf("--redis %s: unreachable: %w", a.Redacted(), err)
	}
	_ = rdb.Close()
	return &target{addr: a, opts: a.Options, desc: a.Redacted()}, nil
}

// dial returns a client for one of the run's client connections.
func (t *target) dial(ctx context.Context, i int) (redis.UniversalClient, error) {
	if t.env != nil {
		return t.env.Dial(ctx, i)
	}
	o := t.opts()
	o.MaxRetries = -1
	o.ContextTimeoutEnabled = true
	t.cutters.Install(i, o)
	return redis.NewClient(o), nil
}

// deps returns the run dependencies of a run on t: its clients, its
// registry and, where t dials the clients itself, reconnects.
func (t *target) deps() workloads.Deps {
	d := workloads.Deps{Dial: t.dial, Registry: t.registry}
	if d.Registry == nil {
		d.Registry = catalog.Subjects
	}
	if t.env == nil {
		d.Reconnect = t.cutters.Cut
	}
	return d
}

func (t *target) Close() error {
	if t.env != nil {
		return t.env.Close()
	}
	if t.server == nil {
		return nil
	}
	return t.server.Close()
}
