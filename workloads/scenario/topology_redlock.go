package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl/driver"
)

// RedlockTopology is n independent redis-servers without persistence
// (no replication between them), each on its own 127.0.0.x address: the
// deployment RedLock runs on. The "redlock" subject is bound to them; its
// clients dial every node themselves. Dial(i) returns a client of node 0,
// which a RedLock ignores but for the nodes it describes to drivers
// (driver.Describe): the addresses of client i's proxies in front of each
// node (a faults.WireSet, Env.WireSets), so that every client, in
// lockcheck's process or in one of its own, reaches the nodes through
// them, and every run has a wire trace.
func RedlockTopology(n int) Topology { return redlockTopology(n, false) }

// redlockTopology is RedlockTopology, with every node run through the clock
// shim when shim is set.
func redlockTopology(n int, shim bool) Topology {
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		env := &Env{}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		nodes, err := faults.StartNodes(ctx, faults.NodesConfig{N: n, Server: faults.ServerConfig{Persistence: faults.PersistNone, ClockShim: shim}})
		if err != nil {
			return nil, err
		}
		env.onClose(nodes.Close)
		env.Nodes = nodes
		env.RedlockNodes, env.RedlockPassword = nodes.Addrs(), nodes.Password()
		var direct []*redis.Client
		for _, a := range nodes.Addrs() {
			c := redis.NewClient(directOptions(a, nodes.Password()))
			env.onClose(c.Close)
			direct = append(direct, c)
		}
		env.Health = func(ctx context.Context) error {
			var errs []error
			for _, c := range direct {
				errs = append(errs, c.Ping(ctx).Err())
			}
			return errors.Join(errs...)
		}
		env.Desc = fmt.Sprintf("%d independent redis-servers %v (started by lockcheck, persistence none)", n, nodes.Addrs())
		env.addWireSets(clients, isAddrOf(nodes.Servers))
		env.WireInProcess, env.WireNodes = false, true // every client is handed its proxies' addresses
		env.Dial = func(_ context.Context, i int) (redis.UniversalClient, error) {
			return proxiedNodes(env.wireSet(i), nodes)
		}
		return env, nil
	}
}

// proxiedNodes is a client of node 0 through ws that describes to the
// RedLocks opened on it the nodes as ws's proxies in front of them (the
// nodes themselves when ws is nil).
func proxiedNodes(ws *faults.WireSet, nodes *faults.Nodes) (redis.UniversalClient, error) {
	addrs := nodes.Addrs()
	if ws != nil {
		for i, a := range addrs {
			p, err := ws.Proxy(a)
			if err != nil {
				return nil, err
			}
			addrs[i] = p
		}
	}
	rdb := redis.NewClient(directOptions(addrs[0], nodes.Password()))
	return driver.Describe(rdb, driver.Topology{Kind: driver.TopologyRedlock, Addrs: addrs, Password: nodes.Password()}), nil
}

// redlockAmnesia is Kleppmann's counterexample on three nodes: node 2
// becomes unreachable (SIGSTOP), so a grant made meanwhile rests on the
// bare majority {0, 1}; then node 1 restarts without persistence and
// forgets it, and node 2 comes back: nodes 1 and 2 now form a majority
// that knows no holder, while the holder still believes it holds.
// Start does all that: after unreachable it waits (at most freshGrantWait)
// for a grant made since then on node 1, so that the restart erases a hold
// that has just begun, not one about to end; then it restarts node 1. Stop
// makes sure node 2 runs.
func redlockAmnesia(w World, unreachable time.Duration) (faults.Fault, error) {
	if w.Env.Nodes == nil || len(w.Env.Nodes.Servers) < 3 {
		return nil, errors.New("scenario: this scenario needs the redlock topology with at least 3 nodes")
	}
	s := w.Env.Nodes.Servers
	forget := faults.RestartEmpty(s[1])
	return faults.Func("redis-restart-empty", fmt.Sprintf("%s (while %s is unreachable)", s[1].Addr(), s[2].Addr()),
		func(ctx context.Context) error {
			if err := s[2].Pause(); err != nil {
				return err
			}
			if err := sleepCtx(ctx, unreachable); err != nil {
				return errors.Join(err, s[2].Resume())
			}
			awaitFreshGrant(ctx, s[1], freshGrantWait)
			err := forget.Start(ctx)
			return errors.Join(err, s[2].Resume())
		},
		func(context.Context) error {
			if s[2].Paused() {
				return s[2].Resume()
			}
			return nil
		}), nil
}

// freshGrantWait bounds redlockAmnesia's wait for a fresh grant: a few
// holds of the plans it runs with (100–350 ms each).
const freshGrantWait = 400 * time.Millisecond

// awaitFreshGrant returns once node holds a key it did not hold, with that
// value, when awaitFreshGrant began (compared by DUMP, so any lock's keys
// do), or after limit, or when ctx ends. It is best effort: an error
// reading node ends the wait early, and the caller goes on either way.
func awaitFreshGrant(ctx context.Context, node *faults.Server, limit time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	c := redis.NewClient(directOptions(node.Addr(), node.Password()))
	defer c.Close()
	before, err := dumpAll(ctx, c)
	for err == nil {
		var now map[string]string
		if now, err = dumpAll(ctx, c); err != nil {
			return
		}
		for k, v := range now {
			if before[k] != v {
				return
			}
		}
		err = sleepCtx(ctx, 5*time.Millisecond)
	}
}

// dumpAll returns every key of c's database with its DUMP (a few lock keys:
// the RedLock nodes hold nothing else).
func dumpAll(ctx context.Context, c *redis.Client) (map[string]string, error) {
	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		v, err := c.Dump(ctx, k).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}
