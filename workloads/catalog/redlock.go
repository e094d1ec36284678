package catalog

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// RedlockName is the name of the RedLock subject.
const RedlockName = "redlock"

// ErrNoRedlockNodes is returned when the redlock subject runs without node
// addresses: it needs N independent Redis nodes, not the run's client.
var ErrNoRedlockNodes = errors.New("redlock needs N independent nodes: run it on a scenario with the redlock topology, or pass --redlock-nodes ADDRS")

// RedlockSubject returns the RedLock subject over the independent Redis
// nodes at addrs (host:port): quorum N/2+1, validity = lease − elapsed −
// drift, no watchdog (a hold taken with lease <= 0 lasts the run's watchdog
// lease). It ignores the client connection the runner dials; each client
// connection gets its own clients to every node. With no addrs its makers
// fail with ErrNoRedlockNodes (the default registry lists it that way, so
// that `lockcheck subjects` shows it; scenarios and the CLI bind it with
// subject.Registry.With).
func RedlockSubject(addrs []string) subject.Subject { return RedlockSubjectAuth(addrs, "") }

// RedlockSubjectAuth is RedlockSubject on nodes that require password
// ("" : none; the nodes of a topology lockcheck starts all require one).
// Each client connection dials its own client per node (MaxRetries -1,
// DialerRetries 1 so that a dead node fails at once, ContextTimeoutEnabled,
// 1 s timeouts), closed with its Maker.
func RedlockSubjectAuth(addrs []string, password string) subject.Subject {
	addrs = append([]string(nil), addrs...)
	return subject.Subject{
		Name: RedlockName, Kind: subject.KindReference, Needs: subject.NeedsRedlockNodes, NoWatchdog: true, SplitVotes: true, OnNodes: RedlockSubjectAuth,
		Doc: "RedLock over N independent nodes (quorum N/2+1, validity lease−elapsed−drift, no watchdog); needs the redlock topology or --redlock-nodes ADDRS",
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			if len(addrs) == 0 {
				return func(context.Context, redis.UniversalClient) (impl.Maker, error) {
					return nil, ErrNoRedlockNodes
				}
			}
			opts := []impl.RedlockOption{impl.WithRedlockLease(o.WatchdogLease), impl.WithRedlockSeed(uint64(o.Seed))}
			if password == "" {
				return impl.RedlockAddrMaker(addrs, opts...)
			}
			return redlockAuthMaker(addrs, password, opts)
		},
	}
}

// redlockAuthMaker opens, per client connection, one authenticated client
// per node and a RedLock Maker over them whose Close closes them. A client
// connection that describes RedLock nodes (the redlock topology's: the
// addresses of its proxies in front of the nodes) is opened on those.
func redlockAuthMaker(addrs []string, password string, opts []impl.RedlockOption) impl.MakerFunc {
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		var nodes []redis.UniversalClient
		var owned []*redis.Client
		at := addrs
		if proxied, ok := redlockNodesOf(rdb); ok && len(proxied) == len(addrs) {
			at = proxied
		}
		for _, a := range at {
			c := redis.NewClient(&redis.Options{
				Addr: a, Password: password, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true,
				DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
			})
			owned = append(owned, c)
			nodes = append(nodes, c)
		}
		m, err := impl.RedlockMaker(nodes, opts...)(ctx, rdb)
		if err != nil {
			return nil, errors.Join(err, closeClients(owned))
		}
		return &ownedMaker{Maker: m, owned: owned}, nil
	}
}

// redlockNodesOf returns the RedLock nodes rdb describes to the locks
// opened on it (driver.Describe: the redlock topology's proxies in front of
// its nodes); ok is false when it describes none.
func redlockNodesOf(rdb redis.UniversalClient) (addrs []string, ok bool) {
	d, isDescribed := rdb.(driver.Described)
	if !isDescribed || d.DriverTopology().Kind != driver.TopologyRedlock {
		return nil, false
	}
	return d.DriverTopology().Addrs, true
}

// ownedMaker is a Maker that also owns the clients it runs on.
type ownedMaker struct {
	impl.Maker
	owned []*redis.Client
}

func (m *ownedMaker) Close() error { return errors.Join(m.Maker.Close(), closeClients(m.owned)) }

func closeClients(cs []*redis.Client) error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
