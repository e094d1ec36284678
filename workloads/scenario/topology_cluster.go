package scenario

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// ClusterTopology is a Redis Cluster (zero config: 3 masters + 3 replicas,
// cluster-node-timeout 1 s) started by lockcheck on its own 127.0.0.x
// addresses; every client connection is a go-redis ClusterClient that
// reloads the cluster state every second (faults.Cluster.ClusterOptions)
// and reaches every node through a faults.WireSet of its own
// (Env.WireSets: the wire trace of in-process runs).
// Every key of one lock lives in one slot: the lock's hash is the lock name
// and its other keys carry the name as a hash tag (impl's key names), so
// the scripts never fail with CROSSSLOT.
func ClusterTopology(cfg faults.ClusterConfig) Topology {
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		env := &Env{}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		c, err := faults.StartCluster(ctx, cfg)
		if err != nil {
			return nil, err
		}
		env.onClose(c.Close)
		env.Cluster = c
		if err := c.WaitSynced(ctx); err != nil {
			return nil, err
		}
		health := c.NewClusterClient()
		env.onClose(health.Close)
		env.Health = func(ctx context.Context) error {
			return health.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
				return m.Ping(ctx).Err()
			})
		}
		env.Desc = fmt.Sprintf("Redis Cluster %v (started by lockcheck), %d ClusterClients", c.Addrs(), clients)
		env.addWireSets(clients, isAddrOf(c.Nodes))
		env.Dial = func(_ context.Context, i int) (redis.UniversalClient, error) {
			co := c.ClusterOptions()
			if ws := env.wireSet(i); ws != nil {
				co.Dialer = ws.Dialer
			}
			return redis.NewClusterClient(co), nil
		}
		return env, nil
	}
}
