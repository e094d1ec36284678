package scenario

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl/driver"
)

// Remote is an existing deployment lockcheck did not start and has no shell
// on: exactly one of Redis, Sentinel or Cluster is set. Nothing in it
// assumes localhost; faults reach it through Redis commands (CLIENT PAUSE,
// DEBUG SLEEP, CLIENT KILL, SENTINEL FAILOVER, CLUSTER FAILOVER) or through
// a toxiproxy server on the network path.
type Remote struct {
	// Redis is a single Redis (or one master reached directly).
	Redis *redis.Options
	// Sentinel reaches a master through its Sentinels.
	Sentinel *redis.FailoverOptions
	// Cluster is a Redis Cluster.
	Cluster *redis.ClusterOptions
	// Toxiproxy, if set, is a toxiproxy server (host:port of its HTTP API)
	// that lockcheck drives over HTTP: with a single Redis, each client
	// connection gets its own proxy on that server, listening on
	// ToxiproxyListenHost (default: the server's host) and forwarding to
	// Redis.Addr as the toxiproxy machine reaches it.
	Toxiproxy           string
	ToxiproxyListenHost string
	// Desc describes the deployment for the record (no password).
	Desc string
}

// Validate reports a Remote that does not name exactly one deployment, or
// asks for toxiproxy without a single Redis.
func (r Remote) Validate() error {
	n := 0
	for _, set := range []bool{r.Redis != nil, r.Sentinel != nil, r.Cluster != nil} {
		if set {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf("scenario: a remote deployment is one of a Redis, a Sentinel group or a Cluster (got %d)", n)
	case r.Toxiproxy != "" && r.Redis == nil:
		return errors.New("scenario: toxiproxy proxies are made for a single Redis only")
	}
	return nil
}

// Topology returns the Topology of r: every client connection is a go-redis
// client of the deployment's kind (on a single Redis through a Wire of its
// own, addWires, and its own toxiproxy proxy when Toxiproxy is set);
// Health pings the deployment directly.
func (r Remote) Topology() Topology {
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		if err := r.Validate(); err != nil {
			return nil, err
		}
		env := &Env{Desc: r.Desc}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		var health redis.UniversalClient
		switch {
		case r.Redis != nil:
			health = redis.NewClient(lockOptions(r.Redis))
		case r.Sentinel != nil:
			o := *r.Sentinel
			o.MaxRetries, o.ContextTimeoutEnabled = -1, true
			health = redis.NewFailoverClient(&o)
		default:
			o := *r.Cluster
			o.MaxRetries, o.ContextTimeoutEnabled = -1, true
			if o.ClusterStateReloadInterval == 0 {
				o.ClusterStateReloadInterval = time.Second
			}
			health = redis.NewClusterClient(&o)
		}
		env.onClose(health.Close)
		env.Health = faults.Ping(health)
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := env.Health(pctx); err != nil {
			return nil, fmt.Errorf("remote %s: unreachable: %w", r.Desc, err)
		}
		if r.Toxiproxy != "" {
			if err := r.addProxies(ctx, env, clients); err != nil {
				return nil, err
			}
		}
		if err := r.addWires(env, clients); err != nil {
			return nil, err
		}
		env.Dial = func(_ context.Context, i int) (redis.UniversalClient, error) {
			switch {
			case r.Redis != nil:
				o := lockOptions(r.Redis)
				switch {
				case len(env.Wires) > 0 && (i < 0 || i >= len(env.Wires)):
					return nil, fmt.Errorf("scenario: client %d of %d", i, len(env.Wires))
				case len(env.Wires) > 0:
					o.Addr = env.Wires[i].Addr()
				case len(env.Links) > 0 && (i < 0 || i >= len(env.Links)):
					return nil, fmt.Errorf("scenario: client %d of %d", i, len(env.Links))
				case len(env.Links) > 0:
					o.Addr = env.Links[i].Addr()
				}
				return redis.NewClient(o), nil
			case r.Sentinel != nil:
				o := *r.Sentinel
				o.MaxRetries, o.ContextTimeoutEnabled = -1, true
				if ws := env.wireSet(i); ws != nil {
					o.Dialer = ws.Dialer
				}
				return driver.NewFailoverClient(&o), nil
			}
			o := *r.Cluster
			o.MaxRetries, o.ContextTimeoutEnabled = -1, true
			if o.ClusterStateReloadInterval == 0 {
				o.ClusterStateReloadInterval = time.Second
			}
			if ws := env.wireSet(i); ws != nil {
				o.Dialer = ws.Dialer
			}
			return redis.NewClusterClient(&o), nil
		}
		return env, nil
	}
}

// addProxies makes one proxy per client on the toxiproxy server.
func (r Remote) addProxies(ctx context.Context, env *Env, clients int) error {
	tp, err := faults.NewRemote(r.Toxiproxy, 5*time.Second)
	if err != nil {
		return err
	}
	env.onClose(tp.Close)
	host := r.ToxiproxyListenHost
	if host == "" {
		ep := r.Toxiproxy
		if !strings.Contains(ep, "://") {
			ep = "http://" + ep
		}
		u, err := url.Parse(ep)
		if err != nil || u.Hostname() == "" {
			return fmt.Errorf("toxiproxy endpoint %q: want host:port or http://host:port", r.Toxiproxy)
		}
		host = u.Hostname()
	}
	tag := time.Now().UnixNano() % 1_000_000_000
	for i := range clients {
		p, err := tp.CreateProxy(ctx, fmt.Sprintf("lockcheck-%d-c%d", tag, i), net.JoinHostPort(host, "0"), r.Redis.Addr)
		if err != nil {
			return err
		}
		env.onClose(func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return p.Delete(ctx)
		})
		env.Links = append(env.Links, p)
	}
	return nil
}

// addWires puts RESP proxies in front of each client connection of a
// deployment reached in plain text, for the wire trace, the checkers'
// evidence, of runs against a deployment lockcheck did not start: on a
// single Redis a faults.Wire (client → Wires[i] → its toxiproxy proxy, if
// any → Redis); on a Sentinel group or a Cluster a faults.WireSet, whose
// Dialer reaches every data node through a Wire of its own (the Sentinels
// directly), as the nodes' own addresses come. TLS hides the commands from
// a proxy, and a custom Dialer of the user's is kept: those runs have no
// trace.
func (r Remote) addWires(env *Env, clients int) error {
	switch {
	case r.Sentinel != nil && r.Sentinel.TLSConfig == nil && r.Sentinel.Dialer == nil:
		sentinels := slices.Clone(r.Sentinel.SentinelAddrs)
		env.addWireSets(clients, func(addr string) bool { return !slices.Contains(sentinels, addr) })
		return nil
	case r.Cluster != nil && r.Cluster.TLSConfig == nil && r.Cluster.Dialer == nil:
		env.addWireSets(clients, nil)
		return nil
	case r.Redis == nil || r.Redis.TLSConfig != nil:
		return nil
	}
	for i := range clients {
		upstream := r.Redis.Addr
		if i < len(env.Links) {
			upstream = env.Links[i].Addr()
		}
		w, err := faults.StartWire(fmt.Sprintf("c%d", i), upstream)
		if err != nil {
			return err
		}
		env.onClose(w.Close)
		env.Wires = append(env.Wires, w)
	}
	return nil
}

// lockOptions copies o for a lock client: no hidden retries, ctx deadlines
// honoured.
func lockOptions(o *redis.Options) *redis.Options {
	c := *o
	c.MaxRetries, c.ContextTimeoutEnabled = -1, true
	return &c
}

// masterOptions returns the options of the Redis node that serves writes
// now (the single Redis, or the Sentinels' current master), for the
// Redis-command faults.
func (r Remote) masterOptions(ctx context.Context) (*redis.Options, error) {
	switch {
	case r.Redis != nil:
		return lockOptions(r.Redis), nil
	case r.Sentinel != nil:
		var errs []error
		for _, a := range r.Sentinel.SentinelAddrs {
			so := &redis.Options{Addr: a, Username: r.Sentinel.SentinelUsername, Password: r.Sentinel.SentinelPassword,
				TLSConfig: r.Sentinel.TLSConfig, MaxRetries: -1, ContextTimeoutEnabled: true, DialTimeout: 2 * time.Second}
			addr, err := faults.SentinelMasterAddr(ctx, so, r.Sentinel.MasterName)
			if err == nil {
				return &redis.Options{Addr: addr, Username: r.Sentinel.Username, Password: r.Sentinel.Password,
					TLSConfig: r.Sentinel.TLSConfig, MaxRetries: -1, ContextTimeoutEnabled: true, DialTimeout: 2 * time.Second}, nil
			}
			errs = append(errs, err)
		}
		return nil, errors.Join(errs...)
	}
	return nil, errors.New("scenario: this fault needs a single Redis or a Sentinel master, not a Cluster")
}
