package scenario

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// RedlockTopology is n independent redis-servers without persistence
// (no replication between them), each on its own 127.0.0.x address: the
// deployment RedLock runs on. The "redlock" subject is bound to them; its
// clients dial every node themselves (Dial returns a client of node 0,
// which the RedLock ignores).
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
		env.Dial = func(context.Context, int) (redis.UniversalClient, error) {
			return redis.NewClient(directOptions(nodes.Addrs()[0], nodes.Password())), nil
		}
		return env, nil
	}
}

// redlockAmnesia is Kleppmann's counterexample on three nodes: node 2
// becomes unreachable (SIGSTOP), so a grant made meanwhile rests on the
// bare majority {0, 1}; then node 1 restarts without persistence and
// forgets it, and node 2 comes back: nodes 1 and 2 now form a majority
// that knows no holder, while the holder still believes it holds.
// Start does all that (about unreachable + 50 ms); Stop makes sure node 2
// runs.
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
