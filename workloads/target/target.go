// Package target is the Redis a plain run talks to: a redis-server
// lockcheck starts on a loopback ephemeral port, an existing Redis named by
// address, or a Sentinel or Cluster deployment (a scenario.Env). It gives
// the runner its dependencies (workloads.Deps): the clients, the subject
// registry and, where it dials the clients itself, reconnects.
package target

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Target is the Redis of plain runs. Close releases it (and stops the
// redis-server it started). Its Deps may be used by one run at a time.
type Target struct {
	server *faults.Server // nil for an existing Redis
	opts   func() *redis.Options
	// env, if set, is a Sentinel or Cluster deployment: it dials the
	// clients and is closed with the target.
	env *scenario.Env
	// cutters cut the connections of the clients Dial made.
	cutters faults.Cutters

	// Desc describes the target; it is safe to print (never a password).
	Desc string
	// Registry resolves the runs' subjects (nil: catalog.Subjects).
	Registry *subject.Registry
	// Wired puts a RESP proxy (faults.Wire) in front of each client
	// connection of a single Redis, whose trace the runs keep (wire.jsonl,
	// the checkers' evidence). Each command then costs one more loopback
	// hop, and the trace grows with every command: runs ask for it.
	Wired bool

	mu    sync.Mutex
	wires map[int]*faults.Wire // by client connection, made by Dial
	probe *redis.Client        // the runs' hiccup probe, made by Deps
}

// Start starts a redis-server with the given persistence on a loopback
// ephemeral port.
func Start(ctx context.Context, persistence faults.Persistence) (*Target, error) {
	s, err := faults.StartServer(ctx, faults.ServerConfig{Persistence: persistence})
	if err != nil {
		return nil, err
	}
	desc := "redis-server " + s.Addr() + " (started by lockcheck, persistence " + string(persistence) + ")"
	return &Target{server: s, opts: s.Options, Desc: desc}, nil
}

// Connect uses the existing Redis at a, after checking within 5 s (and ctx)
// that it answers. Its error names the address (redacted).
func Connect(ctx context.Context, a *faults.RedisAddr) (*Target, error) {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rdb, err := a.Connect(pctx)
	if err != nil {
		return nil, fmt.Errorf("%s: unreachable: %w", a.Redacted(), err)
	}
	_ = rdb.Close()
	return &Target{opts: a.Options, Desc: a.Redacted()}, nil
}

// FromOptions uses the Redis that opts reach, unchecked (tests; callers
// that already hold a server). desc describes it.
func FromOptions(opts func() *redis.Options, desc string) *Target {
	return &Target{opts: opts, Desc: desc}
}

// FromEnv uses a deployment's world: env dials the clients; Close closes
// env.
func FromEnv(env *scenario.Env) *Target {
	return &Target{env: env, Desc: env.Desc}
}

// Options returns fresh go-redis options for the target's single Redis
// (nil for a deployment given by FromEnv).
func (t *Target) Options() *redis.Options {
	if t.opts == nil {
		return nil
	}
	return t.opts()
}

// Dial returns a client for client connection i of a run: no retries of
// its own, ctx deadlines honoured, its connections cut by Deps' Reconnect.
func (t *Target) Dial(ctx context.Context, i int) (redis.UniversalClient, error) {
	if t.env != nil {
		return t.env.Dial(ctx, i)
	}
	o := t.opts()
	o.MaxRetries = -1
	o.ContextTimeoutEnabled = true
	if t.Wired {
		w, err := t.wireFor(i, o.Addr)
		if err != nil {
			return nil, err
		}
		o.Addr = w.Addr()
	}
	t.cutters.Install(i, o)
	return redis.NewClient(o), nil
}

// wireFor returns the Wire in front of client connection i, started on
// first use, forwarding to upstream.
func (t *Target) wireFor(i int, upstream string) (*faults.Wire, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w := t.wires[i]; w != nil {
		return w, nil
	}
	w, err := faults.StartWire(fmt.Sprintf("c%d", i), upstream)
	if err != nil {
		return nil, err
	}
	if t.wires == nil {
		t.wires = map[int]*faults.Wire{}
	}
	t.wires[i] = w
	return w, nil
}

// wire is the Wire in front of client connection i (nil: none yet).
func (t *Target) wire(i int) *faults.Wire {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wires[i]
}

// clientWire is wire as Deps.Wire wants it.
func (t *Target) clientWire(i int) faults.ClientWire {
	if w := t.wire(i); w != nil {
		return w
	}
	return nil // no typed nil in the interface
}

// Deps returns the run dependencies of a run on t: its clients, its
// registry (nil: catalog.Subjects), the binary's server of Go locks in
// processes of their own (catalog.SelfServer), the hiccup watcher's probe
// (a client of its own, behind no client's proxy, cutter or Wire: a
// client's fault is not a hiccup of Redis, and the probe's connection is
// no reconnection of that client's in its wire trace) and, where t dials
// the clients itself, reconnects.
func (t *Target) Deps() workloads.Deps {
	d := workloads.Deps{Dial: t.Dial, Registry: t.Registry, Serve: catalog.SelfServer(), Probe: t.hiccupProbe()}
	if d.Registry == nil {
		d.Registry = catalog.Subjects
	}
	if t.env == nil {
		d.Reconnect = t.cutters.Cut
	}
	if t.Wired && t.env == nil {
		d.Wire, d.Reconnect = t.clientWire, t.cut
	}
	return d
}

// hiccupProbe is Deps' Probe: the deployment's admin client, or a client
// of t's single Redis made on first use and closed with t. nil (the
// runner's fallback: the first client's connection) when t has neither.
func (t *Target) hiccupProbe() redis.UniversalClient {
	if t.env != nil {
		return t.env.Admin
	}
	if t.opts == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.probe == nil {
		o := t.opts()
		o.MaxRetries = -1
		o.ContextTimeoutEnabled = true
		t.probe = redis.NewClient(o)
	}
	return t.probe
}

// cut is Deps' Reconnect of a wired target: client connection i's
// connections cut at its Wire, which reaches a client in any process
// (a driver, a served Go lock), and at lockcheck's own client's dialer.
func (t *Target) cut(i int, outage time.Duration) {
	t.cutters.Cut(i, outage)
	if w := t.wire(i); w != nil {
		w.Cut(outage)
	}
}

// Close releases the target: the deployment's world, or the redis-server
// Start started; an existing Redis is left as it is.
func (t *Target) Close() error {
	t.mu.Lock()
	for _, w := range t.wires {
		_ = w.Close()
	}
	t.wires = nil
	if t.probe != nil {
		_ = t.probe.Close()
		t.probe = nil
	}
	t.mu.Unlock()
	if t.env != nil {
		return t.env.Close()
	}
	if t.server == nil {
		return nil
	}
	return t.server.Close()
}
