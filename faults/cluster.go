package faults

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = 16384

// ClusterConfig configures StartCluster. Zero values mean the defaults,
// which make a master's failover take about 2 s on loopback.
type ClusterConfig struct {
	// Masters is the number of masters (slot ranges). Default 3.
	Masters int
	// ReplicasPerMaster is the number of replicas of each master. Default 1;
	// set it to -1 for none (no failover possible).
	ReplicasPerMaster int
	// NodeTimeout is cluster-node-timeout. Default 1 s.
	NodeTimeout time.Duration
	// Server is the template for every node (Bin, Persistence, Args,
	// StartTimeout). Host, Port and Dir are ignored: each node gets its own
	// LoopbackHost, a free port (and a free cluster bus port) and a
	// temporary directory.
	Server ServerConfig
	// ReadyTimeout bounds the wait, at start, until the cluster state is ok
	// on every node and every replica is in sync. Default 30 s.
	ReadyTimeout time.Duration
}

func (c *ClusterConfig) defaults() {
	if c.Masters <= 0 {
		c.Masters = 3
	}
	switch {
	case c.ReplicasPerMaster == 0:
		c.ReplicasPerMaster = 1
	case c.ReplicasPerMaster < 0:
		c.ReplicasPerMaster = 0
	}
	if c.NodeTimeout <= 0 {
		c.NodeTimeout = time.Second
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 30 * time.Second
	}
}

// Cluster is a Redis Cluster started by lockcheck on loopback: Masters
// masters that split the 16384 slots evenly, each with ReplicasPerMaster
// replicas. Every node binds its own LoopbackHost, announces it, and sends
// from it (bind-source-addr), so a Firewall can cut any link of the cluster
// bus or of replication. It is built with CLUSTER ADDSLOTSRANGE, MEET and
// REPLICATE (no redis-cli needed).
//
// Close kills every node and removes every file. Methods are safe for
// concurrent use.
type Cluster struct {
	// Nodes are the nodes: Nodes[:Masters] started as the masters, the
	// replicas of master i follow in order. After a failover any node may
	// be a master (see MasterOf).
	Nodes []*Server

	cfg ClusterConfig
}

// StartCluster starts and forms a cluster, and returns once cluster_state is
// ok on every node and every replica is in sync with its master. On error it
// stops what it started.
func StartCluster(ctx context.Context, cfg ClusterConfig) (_ *Cluster, err error) {
	cfg.defaults()
	c := &Cluster{cfg: cfg}
	defer func() {
		if err != nil {
			err = errors.Join(err, c.Close())
		}
	}()
	total := cfg.Masters * (1 + cfg.ReplicasPerMaster)
	for i := 0; i < total; i++ {
		s, err := c.startNode(ctx)
		if err != nil {
			return nil, fmt.Errorf("cluster: node %d: %w", i, err)
		}
		c.Nodes = append(c.Nodes, s)
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout)
	defer cancel()
	if err := c.form(rctx); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := c.WaitOK(rctx); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	if err := c.WaitSynced(rctx); err != nil {
		return nil, fmt.Errorf("cluster: %w", err)
	}
	return c, nil
}

// startNode starts one cluster node with its own address, port and bus port.
func (c *Cluster) startNode(ctx context.Context) (*Server, error) {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		sc := c.cfg.Server
		sc.Host, sc.Dir = LoopbackHost(), ""
		args := []string{
			"--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf",
			"--cluster-node-timeout", strconv.FormatInt(c.cfg.NodeTimeout.Milliseconds(), 10),
			"--cluster-announce-ip", sc.Host,
		}
		if legacyServer(ctx, serverBin(ctx, sc)) {
			// Before Redis 7 the bus is port+10000, and the node sends
			// from its bind address without being told.
			if sc.Port, err = freePortWithBus(sc.Host); err != nil {
				return nil, err
			}
		} else {
			var bus int
			if sc.Port, err = freePort(sc.Host); err != nil {
				return nil, err
			}
			if bus, err = freePort(sc.Host); err != nil {
				return nil, err
			}
			args = append(args, "--cluster-port", strconv.Itoa(bus), "--bind-source-addr", sc.Host)
		}
		sc.Args = append(args, c.cfg.Server.Args...)
		var s *Server
		if s, err = StartServer(ctx, sc); err == nil {
			return s, nil
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, err
}

// form assigns slots, joins the nodes and attaches the replicas.
func (c *Cluster) form(ctx context.Context) error {
	clients := make([]*redis.Client, len(c.Nodes))
	for i, s := range c.Nodes {
		clients[i] = redis.NewClient(adminOptions(s))
		defer clients[i].Close()
	}
	ids := make([]string, len(c.Nodes))
	for i, rdb := range clients {
		id, err := rdb.Do(ctx, "CLUSTER", "MYID").Text()
		if err != nil {
			return fmt.Errorf("cluster myid on %s: %w", c.Nodes[i].Addr(), err)
		}
		ids[i] = id
		// Distinct epochs let the nodes agree on the slot map at once.
		if err := rdb.Do(ctx, "CLUSTER", "SET-CONFIG-EPOCH", i+1).Err(); err != nil {
			return fmt.Errorf("cluster set-config-epoch on %s: %w", c.Nodes[i].Addr(), err)
		}
	}
	m := c.cfg.Masters
	for i := 0; i < m; i++ {
		lo, hi := i*clusterSlots/m, (i+1)*clusterSlots/m-1
		if err := addSlots(ctx, clients[i], lo, hi); err != nil {
			return fmt.Errorf("cluster addslotsrange %d %d on %s: %w", lo, hi, c.Nodes[i].Addr(), err)
		}
	}
	for i := 1; i < len(c.Nodes); i++ {
		host, port := splitAddr(c.Nodes[i].Addr())
		bus, err := busPort(ctx, clients[i])
		if err != nil {
			return err
		}
		if err := clients[0].Do(ctx, "CLUSTER", "MEET", host, port, bus).Err(); err != nil {
			return fmt.Errorf("cluster meet %s: %w", c.Nodes[i].Addr(), err)
		}
	}
	// Every node must know every other before a replica can name its master.
	for i, rdb := range clients {
		err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
			nodes, err := rdb.ClusterNodes(ctx).Result()
			if err != nil {
				return false, err
			}
			lines := strings.Split(strings.TrimSpace(nodes), "\n")
			return len(lines) == len(c.Nodes) && !strings.Contains(nodes, "handshake") && !strings.Contains(nodes, "noaddr"), nil
		})
		if err != nil {
			return fmt.Errorf("node %s does not know every node: %w", c.Nodes[i].Addr(), err)
		}
	}
	for i := m; i < len(c.Nodes); i++ {
		master := (i - m) % m
		if err := clients[i].Do(ctx, "CLUSTER", "REPLICATE", ids[master]).Err(); err != nil {
			return fmt.Errorf("cluster replicate on %s: %w", c.Nodes[i].Addr(), err)
		}
	}
	return nil
}

// addSlots assigns slots lo..hi to the node: CLUSTER ADDSLOTSRANGE, or
// before Redis 7, which lacks it, CLUSTER ADDSLOTS with every slot.
func addSlots(ctx context.Context, rdb *redis.Client, lo, hi int) error {
	err := rdb.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", lo, hi).Err()
	if err == nil || !strings.Contains(err.Error(), "Unknown subcommand") {
		return err
	}
	args := []any{"CLUSTER", "ADDSLOTS"}
	for slot := lo; slot <= hi; slot++ {
		args = append(args, slot)
	}
	return rdb.Do(ctx, args...).Err()
}

func busPort(ctx context.Context, rdb *redis.Client) (string, error) {
	v, err := rdb.ConfigGet(ctx, "cluster-port").Result()
	if err != nil {
		return "", fmt.Errorf("config get cluster-port: %v", err)
	}
	if v["cluster-port"] == "" { // before Redis 7: the bus is port+10000
		_, port := splitAddr(rdb.Options().Addr)
		p, err := strconv.Atoi(port)
		if err != nil {
			return "", fmt.Errorf("cluster bus of %s: %v", rdb.Options().Addr, err)
		}
		return strconv.Itoa(p + legacyBusOffset), nil
	}
	return v["cluster-port"], nil
}

// Addrs returns every node's host:port.
func (c *Cluster) Addrs() []string { return addrsOf(c.Nodes) }

// Node returns the node at addr.
func (c *Cluster) Node(addr string) (*Server, error) {
	for _, s := range c.Nodes {
		if s.Addr() == addr {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no cluster node at %s", addr)
}

// Password is the password of every node of c. Never print it.
func (c *Cluster) Password() string { return c.Nodes[0].Password() }

// ClusterOptions returns options for a go-redis ClusterClient (with the
// nodes' password) that recovers
// from a dead master within seconds: ClusterStateReloadInterval 1 s (the
// default of 60 s keeps dialling a dead master for up to a minute,
// go-redis#3979), no hidden retries of a command on one node (MaxRetries
// -1; MOVED/ASK redirects are still followed), 1 s timeouts and ctx
// deadlines honoured. Change them before use as needed.
func (c *Cluster) ClusterOptions() *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:                      c.Addrs(),
		Password:                   c.Password(),
		ClusterStateReloadInterval: time.Second,
		MaxRetries:                 -1,
		ContextTimeoutEnabled:      true,
		DialTimeout:                time.Second,
		ReadTimeout:                time.Second,
		WriteTimeout:               time.Second,
	}
}

// NewClusterClient returns a client on ClusterOptions. The caller closes it.
func (c *Cluster) NewClusterClient() *redis.ClusterClient {
	return redis.NewClusterClient(c.ClusterOptions())
}

// WaitOK blocks until every running, unpaused node reports cluster_state:ok
// and they all agree on which node serves each slot range. Bounded by ctx.
func (c *Cluster) WaitOK(ctx context.Context) error {
	var last string
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		var ref string
		for _, s := range c.live() {
			info, slots, err := clusterView(ctx, s)
			if err != nil {
				return false, err
			}
			if !strings.Contains(info, "cluster_state:ok") {
				last = s.Addr() + ": cluster_state not ok"
				return false, nil
			}
			v := fmt.Sprint(slots)
			if ref == "" {
				ref = v
			} else if v != ref {
				last = s.Addr() + ": slot map differs from another node's"
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil && last != "" {
		err = fmt.Errorf("%w (%s)", err, last)
	}
	return err
}

// slotRange is one slot range and the address of the master serving it.
type slotRange struct {
	Lo, Hi int64
	Master string
}

// clusterView returns s's CLUSTER INFO and its slot map (from CLUSTER SLOTS),
// ordered by slot.
func clusterView(ctx context.Context, s *Server) (string, []slotRange, error) {
	rdb := redis.NewClient(adminOptions(s))
	defer rdb.Close()
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil {
		return "", nil, fmt.Errorf("cluster info on %s: %w", s.Addr(), err)
	}
	slots, err := rdb.ClusterSlots(ctx).Result()
	if err != nil {
		return "", nil, fmt.Errorf("cluster slots on %s: %w", s.Addr(), err)
	}
	out := make([]slotRange, 0, len(slots))
	for _, sl := range slots {
		r := slotRange{Lo: int64(sl.Start), Hi: int64(sl.End)}
		if len(sl.Nodes) > 0 {
			r.Master = sl.Nodes[0].Addr
		}
		out = append(out, r)
	}
	// CLUSTER SLOTS has no fixed order.
	slices.SortFunc(out, func(a, b slotRange) int { return cmp.Compare(a.Lo, b.Lo) })
	return info, out, nil
}

// live returns the nodes that are running and not paused.
func (c *Cluster) live() []*Server {
	var out []*Server
	for _, s := range c.Nodes {
		if s.Running() && !s.Paused() {
			out = append(out, s)
		}
	}
	return out
}

// Slot returns the hash slot of key (CLUSTER KEYSLOT on a live node).
func (c *Cluster) Slot(ctx context.Context, key string) (int64, error) {
	var errs []error
	for _, s := range c.live() {
		rdb := redis.NewClient(adminOptions(s))
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		_ = rdb.Close()
		if err == nil {
			return slot, nil
		}
		errs = append(errs, err)
	}
	return 0, fmt.Errorf("cluster keyslot %q: %w", key, errors.Join(append(errs, errors.New("no live node"))...))
}

// MasterOf returns the node that serves key's slot, as the first live node
// that answers sees it (nodes may briefly disagree during a failover).
func (c *Cluster) MasterOf(ctx context.Context, key string) (*Server, error) {
	slot, err := c.Slot(ctx, key)
	if err != nil {
		return nil, err
	}
	addr, err := c.masterOfSlot(ctx, slot, c.live()[:1])
	if err != nil {
		return nil, err
	}
	return c.Node(addr)
}

// masterOfSlot returns the master of slot as every node of views agrees,
// or an error when they disagree.
func (c *Cluster) masterOfSlot(ctx context.Context, slot int64, views []*Server) (string, error) {
	var master string
	for _, s := range views {
		_, slots, err := clusterView(ctx, s)
		if err != nil {
			return "", err
		}
		var m string
		for _, r := range slots {
			if r.Lo <= slot && slot <= r.Hi {
				m = r.Master
			}
		}
		if m == "" {
			return "", fmt.Errorf("%s: slot %d is not served", s.Addr(), slot)
		}
		if master != "" && m != master {
			return "", fmt.Errorf("nodes disagree on the master of slot %d: %s and %s", slot, master, m)
		}
		master = m
	}
	if master == "" {
		return "", errors.New("no live node")
	}
	return master, nil
}

// WaitSynced blocks until every live replica is connected to its master
// (state=online) and has acknowledged every write the master had when the
// wait began. Bounded by ctx.
func (c *Cluster) WaitSynced(ctx context.Context) error {
	byMaster := map[string][]*Server{}
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		clear(byMaster)
		for _, s := range c.live() {
			rdb := redis.NewClient(adminOptions(s))
			info, err := rdb.Info(ctx, "replication").Result()
			_ = rdb.Close()
			if err != nil {
				return false, err
			}
			r := parseReplication(info)
			if r.role == "slave" {
				if r.master == "" {
					return false, nil
				}
				byMaster[r.master] = append(byMaster[r.master], s)
			}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	for addr, replicas := range byMaster {
		m, err := c.Node(addr)
		if err != nil {
			return err
		}
		if err := waitSyncedOn(ctx, m, replicas); err != nil {
			return fmt.Errorf("replicas of %s: %w", addr, err)
		}
	}
	return nil
}

// Close kills every node and removes its files. It is idempotent.
func (c *Cluster) Close() error { return closeAll(c.Nodes) }

// replicasOf returns the addresses of the replicas master lists as online.
func replicasOf(ctx context.Context, master *Server) ([]string, error) {
	rdb := redis.NewClient(adminOptions(master))
	defer rdb.Close()
	info, err := rdb.Info(ctx, "replication").Result()
	if err != nil {
		return nil, fmt.Errorf("info replication on %s: %w", master.Addr(), err)
	}
	var out []string
	for addr, st := range parseReplication(info).replicas {
		if st.state == "online" {
			out = append(out, addr)
		}
	}
	return out, nil
}
