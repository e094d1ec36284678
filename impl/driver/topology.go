package driver

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Topologies a driver may support (Banner.Topologies, hello's "topology").
const (
	// TopologySingle is one Redis at one address (a fault proxy's, when the
	// run injects network faults).
	TopologySingle = "single"
	// TopologySentinel is a master found through Sentinels: hello's
	// "redis" lists the Sentinels, "master_name" names the master.
	TopologySentinel = "sentinel"
	// TopologyCluster is a Redis Cluster: hello's "redis" lists seed nodes.
	TopologyCluster = "cluster"
	// TopologyRedlock is N independent masters, no replication between
	// them (the RedLock's deployment): hello's "redis" lists every one,
	// and the lock is a quorum of them (N/2+1).
	TopologyRedlock = "redlock"
)

// Topology is what a driver connects to: hello's connection fields.
type Topology struct {
	// Kind is TopologySingle, TopologySentinel, TopologyCluster or
	// TopologyRedlock.
	Kind string
	// Addrs are the server (single), the Sentinels (sentinel), the seed
	// nodes (cluster) or the independent masters (redlock), host:port each.
	Addrs []string
	// MasterName is the master the Sentinels monitor (sentinel).
	MasterName string
	// Username, Password and DB are the data nodes' credentials and database.
	Username, Password string
	DB                 int
	// SentinelPassword is the Sentinels' password (sentinel).
	SentinelPassword string
	// ReadTimeout is how long the client drivers are opened on waits for
	// a reply (0: not known).
	ReadTimeout time.Duration
}

// Described is implemented by go-redis clients that tell drivers the
// topology they reach: a Sentinel FailoverClient keeps its Sentinels to
// itself, so whoever makes one wraps it with Describe.
type Described interface {
	redis.UniversalClient
	DriverTopology() Topology
}

// Describe returns rdb telling drivers opened on it that they connect to t.
func Describe(rdb redis.UniversalClient, t Topology) Described {
	return described{UniversalClient: rdb, t: t}
}

type described struct {
	redis.UniversalClient
	t Topology
}

func (d described) DriverTopology() Topology { return d.t }

// topologyOf reads what drivers opened on rdb connect to: a Described
// client's topology, a ClusterClient's seed nodes, or a single-server
// client's address.
func topologyOf(rdb redis.UniversalClient) (Topology, error) {
	switch c := rdb.(type) {
	case Described:
		return c.DriverTopology(), nil
	case *redis.ClusterClient:
		o := c.Options()
		return Topology{Kind: TopologyCluster, Addrs: o.Addrs, Username: o.Username, Password: o.Password, ReadTimeout: o.ReadTimeout}, nil
	case *redis.Client:
		o := c.Options()
		if o.Addr == "" || o.Addr == "FailoverClient" || strings.HasPrefix(o.Network, "unix") {
			return Topology{}, fmt.Errorf("driver: client address %q is not a TCP host:port a driver can dial (a Sentinel client must be wrapped with driver.Describe)", o.Addr)
		}
		return Topology{Kind: TopologySingle, Addrs: []string{o.Addr}, Username: o.Username, Password: o.Password, DB: o.DB, ReadTimeout: o.ReadTimeout}, nil
	}
	return Topology{}, fmt.Errorf("driver: %T does not say what it connects to (wrap it with driver.Describe)", rdb)
}

// Supports reports whether the banner announces topology kind; a banner
// without "topologies" supports TopologySingle only.
func (b Banner) Supports(kind string) bool {
	if len(b.Topologies) == 0 {
		return kind == TopologySingle
	}
	return slices.Contains(b.Topologies, kind)
}

// NewFailoverClient returns a go-redis FailoverClient on o that tells
// drivers opened on it the Sentinels, master name and passwords of o.
func NewFailoverClient(o *redis.FailoverOptions) Described {
	return Describe(redis.NewFailoverClient(o), Topology{
		Kind: TopologySentinel, Addrs: o.SentinelAddrs, MasterName: o.MasterName,
		Username: o.Username, Password: o.Password, DB: o.DB, SentinelPassword: o.SentinelPassword,
	})
}
