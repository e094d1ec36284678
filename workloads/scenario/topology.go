package scenario

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
)

// Topology builds the world of one run for clients client connections.
// The Env it returns must be closed.
type Topology func(ctx context.Context, clients int) (*Env, error)

// Env is one run's world: how client connection i reaches Redis and what
// faults can act on.
type Env struct {
	// Dial opens client connection i (workloads.Deps.Dial).
	Dial func(ctx context.Context, i int) (redis.UniversalClient, error)
	// Server is the redis-server lockcheck started (nil in topologies
	// without a single server).
	Server *faults.Server
	// Links are the client↔Redis paths: Dial(i) goes through Links[i].
	Links []faults.Link
	// Wires, in topologies that have them (SingleServer), sit behind
	// the Links: Wires[i] reads client i's commands (faults.RefuseOnce,
	// SlowReply, KillClient). Admin reaches Redis directly.
	Wires []*faults.Wire
	// WireSets, in topologies of several servers (Sentinel, Cluster,
	// RedLock nodes), are each client's proxies instead, a Wire per data
	// server: WireSets[i].Dialer is the dialer of client i's go-redis
	// client (Sentinel, Cluster), and RedLock clients are handed
	// WireSets[i]'s proxy addresses.
	WireSets []*faults.WireSet
	// WireInProcess says the WireSets see only the clients lockcheck dials
	// in its own process (Sentinel, Cluster: a client in a process of its
	// own dials the nodes the servers name), so only in-process runs are
	// traced (workloads.Deps.WireInProcess). On RedLock nodes every client
	// is handed its proxies' addresses, and every run is traced.
	WireInProcess bool
	// WireNodes says the WireSets sit in front of the RedLock nodes
	// (workloads.Deps.WireNodes).
	WireNodes bool
	Admin     redis.UniversalClient
	// Health checks Redis directly, not through a Link.
	Health faults.HealthCheck
	// Desc describes the deployment for the record (no password).
	Desc string

	// Sentinel, Cluster and Nodes are the topologies lockcheck started
	// (nil when not this topology); Firewall cuts links between their
	// servers (nil when the topology has none). See topology_*.go.
	Sentinel *faults.Sentinel
	Cluster  *faults.Cluster
	Nodes    *faults.Nodes
	Firewall *faults.Firewall
	// RedlockNodes, if set, are the addresses the subjects of the redlock
	// topology ("redlock", rslock-3, ...) run on in this world (Prepare
	// binds them to them).
	RedlockNodes []string
	// RedlockPassword is the password of the RedlockNodes ("" : none).
	RedlockPassword string
	// ClientClocks, if set, are the in-process clocks of the client
	// connections (ClientClocks[i] is client i's; see WithClientClocks),
	// and ClientShims the clock-shim clocks of their driver processes.
	ClientClocks []*impl.OffsetClock
	ClientShims  []*faults.Clock
	clientOf     sync.Map // redis.UniversalClient -> int, with ClientClocks

	closeOnce sync.Once
	closers   []func() error
	closeErr  error
}

// Close tears the world down, last built first. It is idempotent.
func (e *Env) Close() error {
	e.closeOnce.Do(func() {
		var errs []error
		for i := len(e.closers) - 1; i >= 0; i-- {
			errs = append(errs, e.closers[i]())
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}

func (e *Env) onClose(f func() error) { e.closers = append(e.closers, f) }

// wire is the Wire in front of client connection i (nil: none).
func (e *Env) wire(i int) *faults.Wire {
	if i < 0 || i >= len(e.Wires) {
		return nil
	}
	return e.Wires[i]
}

// clientWire is what traces client connection i: its Wire, or its
// WireSet (nil: neither).
func (e *Env) clientWire(i int) faults.ClientWire {
	switch {
	case i >= 0 && i < len(e.Wires):
		return e.Wires[i]
	case i >= 0 && i < len(e.WireSets):
		return e.WireSets[i]
	}
	return nil
}

// addWireSets gives env one WireSet per client, each sending the addresses
// route accepts through Wires of its own, for in-process clients
// (WireInProcess) until the topology says otherwise.
func (e *Env) addWireSets(clients int, route func(addr string) bool) {
	e.WireInProcess = true
	for i := range clients {
		ws := faults.NewWireSet(fmt.Sprintf("c%d", i), route)
		e.onClose(ws.Close)
		e.WireSets = append(e.WireSets, ws)
	}
}

// wireSet is client connection i's WireSet (nil: none).
func (e *Env) wireSet(i int) *faults.WireSet {
	if i < 0 || i >= len(e.WireSets) {
		return nil
	}
	return e.WireSets[i]
}

// SingleServer is the embedded topology: one redis-server on loopback with
// the given persistence, and per client connection one in-process toxiproxy
// proxy and behind it one faults.Wire (client → Links[i] → Wires[i] →
// Redis). Dial(i) goes through Links[i], so that a network fault can cut
// one client off while the others still reach Redis; Wires[i] reads client
// i's commands, for the faults that act on one command of one client
// (faults.RefuseOnce, SlowReply, KillClient) and for the wire trace, the
// checkers' evidence of what each client sent and when it reconnected.
// The Wire's loopback hop costs each command a few tens of microseconds
// (results/bench/wire/latest.md).
func SingleServer(p faults.Persistence) Topology {
	return singleServer(faults.ServerConfig{Persistence: p})
}

// singleServer is SingleServer with the server started from cfg.
func singleServer(cfg faults.ServerConfig) Topology {
	p := cfg.Persistence
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		env := &Env{}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		s, err := faults.StartServer(ctx, cfg)
		if err != nil {
			return nil, err
		}
		env.onClose(s.Close)
		env.Server = s
		for i := range clients {
			w, err := faults.StartWire(fmt.Sprintf("c%d", i), s.Addr())
			if err != nil {
				return nil, err
			}
			env.onClose(w.Close)
			env.Wires = append(env.Wires, w)
			px, err := faults.StartLink(fmt.Sprintf("c%d", i), w.Addr())
			if err != nil {
				return nil, err
			}
			env.onClose(px.Close)
			env.Links = append(env.Links, px)
		}
		direct := redis.NewClient(s.Options())
		env.onClose(direct.Close)
		env.Health, env.Admin = faults.Ping(direct), direct
		env.Desc = fmt.Sprintf("redis-server %s (started by lockcheck, persistence %s), %d proxied clients", s.Addr(), p, clients)
		env.Dial = func(_ context.Context, i int) (redis.UniversalClient, error) {
			if i < 0 || i >= len(env.Links) {
				return nil, fmt.Errorf("scenario: client %d of %d", i, len(env.Links))
			}
			o := s.Options()
			o.Addr = env.Links[i].Addr()
			return redis.NewClient(o), nil
		}
		return env, nil
	}
}
