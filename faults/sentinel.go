package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelConfig configures StartSentinel. Zero values mean the defaults,
// which make a failover take about 2–3 s on loopback.
type SentinelConfig struct {
	// MasterName is the name Sentinel monitors the master under. Default
	// "lockcheck".
	MasterName string
	// Replicas is the number of replicas of the master. Default 2.
	Replicas int
	// Sentinels is the number of Sentinel processes. Default 3.
	Sentinels int
	// Quorum is how many Sentinels must agree that the master is down.
	// Default Sentinels/2+1.
	Quorum int
	// DownAfter is Sentinel's down-after-milliseconds. Default 1 s (below
	// about 500 ms a busy 2-core machine sees false failovers).
	DownAfter time.Duration
	// FailoverTimeout is Sentinel's failover-timeout. Default 3 s.
	FailoverTimeout time.Duration
	// Server is the template for the master and replicas (Bin, Persistence,
	// Args, StartTimeout). Host, Port and Dir are ignored: each node gets its
	// own LoopbackHost, a free port and a temporary directory.
	Server ServerConfig
	// ReadyTimeout bounds the wait, at start, until every replica is in sync
	// and every Sentinel knows every replica and every other Sentinel.
	// Default 30 s.
	ReadyTimeout time.Duration
}

func (c *SentinelConfig) defaults() {
	if c.MasterName == "" {
		c.MasterName = "lockcheck"
	}
	if c.Replicas <= 0 {
		c.Replicas = 2
	}
	if c.Sentinels <= 0 {
		c.Sentinels = 3
	}
	if c.Quorum <= 0 {
		c.Quorum = c.Sentinels/2 + 1
	}
	if c.DownAfter <= 0 {
		c.DownAfter = time.Second
	}
	if c.FailoverTimeout <= 0 {
		c.FailoverTimeout = 3 * time.Second
	}
	if c.ReadyTimeout <= 0 {
		c.ReadyTimeout = 30 * time.Second
	}
}

// Sentinel is a master, its replicas and a group of Sentinels, all started by
// lockcheck on loopback. Every process binds its own LoopbackHost and sends
// from it (bind-source-addr), so a Firewall can cut any server↔server link.
// Replication is asynchronous, as in production: an acknowledged write can be
// lost in a failover.
//
// Close kills every process and removes every file. Methods are safe for
// concurrent use.
type Sentinel struct {
	// Nodes are the data nodes. Nodes[0] started as the master; after a
	// failover any of them may be (see CurrentMaster and Master).
	Nodes []*Server
	// Sentinels are the Sentinel processes.
	Sentinels []*Server

	cfg  SentinelConfig
	dirs []string
}

// StartSentinel starts a master, cfg.Replicas replicas and cfg.Sentinels
// Sentinels, and returns once every replica has finished its initial sync
// and every Sentinel knows every replica and every other Sentinel, so a
// failover can happen from then on without losing acknowledged writes of the
// initial sync. On error it stops what it started.
func StartSentinel(ctx context.Context, cfg SentinelConfig) (_ *Sentinel, err error) {
	cfg.defaults()
	t := &Sentinel{cfg: cfg}
	defer func() {
		if err != nil {
			err = errors.Join(err, t.Close())
		}
	}()
	master, err := startNode(ctx, cfg.Server, nil)
	if err != nil {
		return nil, fmt.Errorf("sentinel topology: master: %w", err)
	}
	t.Nodes = append(t.Nodes, master)
	mhost, mport := splitAddr(master.Addr())
	for i := 0; i < cfg.Replicas; i++ {
		r, err := startNode(ctx, cfg.Server, []string{"--replicaof", mhost, mport})
		if err != nil {
			return nil, fmt.Errorf("sentinel topology: replica %d: %w", i, err)
		}
		t.Nodes = append(t.Nodes, r)
	}
	rctx, cancel := context.WithTimeout(ctx, cfg.ReadyTimeout)
	defer cancel()
	// Sentinels learn replicas from the master's INFO, which they read every
	// 10 s once running: start them after the replicas are connected.
	if err := waitSyncedOn(rctx, master, t.Nodes[1:]); err != nil {
		return nil, fmt.Errorf("sentinel topology: initial sync: %w", err)
	}
	for i := 0; i < cfg.Sentinels; i++ {
		s, err := t.startSentinel(ctx, master)
		if err != nil {
			return nil, fmt.Errorf("sentinel topology: sentinel %d: %w", i, err)
		}
		t.Sentinels = append(t.Sentinels, s)
	}
	if err := t.waitSentinelsReady(rctx); err != nil {
		return nil, fmt.Errorf("sentinel topology: sentinels not ready: %w", err)
	}
	return t, nil
}

// startNode starts a data node on its own loopback address, sending from it.
func startNode(ctx context.Context, tmpl ServerConfig, args []string) (*Server, error) {
	sc := tmpl
	sc.Host, sc.Port, sc.Dir = LoopbackHost(), 0, ""
	sc.Args = append(append([]string{"--bind-source-addr", sc.Host}, args...), tmpl.Args...)
	return StartServer(ctx, sc)
}

func (t *Sentinel) startSentinel(ctx context.Context, master *Server) (*Server, error) {
	dir, err := os.MkdirTemp("", sentinelDirPattern())
	if err != nil {
		return nil, err
	}
	t.dirs = append(t.dirs, dir)
	host, port := splitAddr(master.Addr())
	name := t.cfg.MasterName
	// The Sentinels share the data nodes' password: requirepass for their
	// clients, sentinel-pass towards each other, auth-pass towards the
	// master and replicas.
	pw := master.Password()
	conf := fmt.Sprintf("requirepass %s\n"+
		"sentinel sentinel-pass %s\n"+
		"sentinel monitor %s %s %s %d\n"+
		"sentinel auth-pass %s %s\n"+
		"sentinel down-after-milliseconds %s %d\n"+
		"sentinel failover-timeout %s %d\n"+
		"sentinel parallel-syncs %s 1\n",
		pw, pw,
		name, host, port, t.cfg.Quorum,
		name, pw,
		name, t.cfg.DownAfter.Milliseconds(),
		name, t.cfg.FailoverTimeout.Milliseconds(),
		name)
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	h := LoopbackHost()
	return StartServer(ctx, ServerConfig{
		Bin:          t.cfg.Server.Bin,
		Host:         h,
		Dir:          dir,
		ConfigFile:   path,
		Args:         []string{"--sentinel", "--bind-source-addr", h},
		StartTimeout: t.cfg.Server.StartTimeout,
		Password:     pw,
	})
}

// waitSentinelsReady polls every Sentinel until it sees every replica and
// every other Sentinel.
func (t *Sentinel) waitSentinelsReady(ctx context.Context) error {
	for _, s := range t.Sentinels {
		sc := redis.NewSentinelClient(adminOptions(s))
		err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
			m, err := sc.Master(ctx, t.cfg.MasterName).Result()
			if err != nil {
				return false, err
			}
			return m["num-slaves"] == strconv.Itoa(t.cfg.Replicas) &&
				m["num-other-sentinels"] == strconv.Itoa(len(t.Sentinels)-1), nil
		})
		_ = sc.Close()
		if err != nil {
			return fmt.Errorf("sentinel %s: %w", s.Addr(), err)
		}
	}
	return nil
}

// MasterName is the name the Sentinels monitor the master under.
func (t *Sentinel) MasterName() string { return t.cfg.MasterName }

// SentinelAddrs returns the Sentinels' host:port addresses.
func (t *Sentinel) SentinelAddrs() []string { return addrsOf(t.Sentinels) }

// CurrentMaster returns the master's address as the first Sentinel that
// answers reports it (SENTINEL get-master-addr-by-name). During a failover
// Sentinels may briefly disagree.
func (t *Sentinel) CurrentMaster(ctx context.Context) (string, error) {
	var errs []error
	for _, s := range t.Sentinels {
		if !s.Running() || s.Paused() {
			continue
		}
		addr, err := SentinelMasterAddr(ctx, adminOptions(s), t.cfg.MasterName)
		if err == nil {
			return addr, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("current master of %q: no Sentinel answered: %w", t.cfg.MasterName, errors.Join(errs...))
}

// Master returns the data node the Sentinels report as master.
func (t *Sentinel) Master(ctx context.Context) (*Server, error) {
	addr, err := t.CurrentMaster(ctx)
	if err != nil {
		return nil, err
	}
	return t.Node(addr)
}

// Node returns the data node at addr.
func (t *Sentinel) Node(addr string) (*Server, error) {
	for _, s := range t.Nodes {
		if s.Addr() == addr {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no data node at %s", addr)
}

// WaitSynced blocks until every running, unpaused data node other than the
// master is connected to the current master as a replica (state=online) and
// has acknowledged every write the master had when WaitSynced was called.
// Call it before a fault: a failover that promotes a replica still in its
// initial sync loses acknowledged writes. Bounded by ctx.
func (t *Sentinel) WaitSynced(ctx context.Context) error {
	master, err := t.Master(ctx)
	if err != nil {
		return err
	}
	var replicas []*Server
	for _, s := range t.Nodes {
		if s != master && s.Running() && !s.Paused() {
			replicas = append(replicas, s)
		}
	}
	return waitSyncedOn(ctx, master, replicas)
}

// Password is the password of every data node and Sentinel of t. Never
// print it.
func (t *Sentinel) Password() string { return t.Nodes[0].Password() }

// FailoverOptions returns options for a go-redis FailoverClient that follows
// the master through the Sentinels, with the topology's password (for the
// Sentinels and the data nodes), no hidden retries (MaxRetries -1), 1 s
// timeouts and ctx deadlines honoured. Change them before use as needed.
func (t *Sentinel) FailoverOptions() *redis.FailoverOptions {
	return &redis.FailoverOptions{
		MasterName:            t.cfg.MasterName,
		SentinelAddrs:         t.SentinelAddrs(),
		Password:              t.Password(),
		SentinelPassword:      t.Password(),
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           time.Second,
		WriteTimeout:          time.Second,
	}
}

// NewFailoverClient returns a client on FailoverOptions. The caller closes it.
func (t *Sentinel) NewFailoverClient() *redis.Client {
	return redis.NewFailoverClient(t.FailoverOptions())
}

// Close kills every Sentinel and data node and removes their files. It is
// idempotent.
func (t *Sentinel) Close() error {
	err := errors.Join(closeAll(t.Sentinels), closeAll(t.Nodes))
	for _, d := range t.dirs {
		if rerr := os.RemoveAll(d); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	t.dirs = nil
	return err
}

// SentinelMasterAddr asks the Sentinel that opt reaches for the address of
// the master it monitors under name.
func SentinelMasterAddr(ctx context.Context, opt *redis.Options, name string) (string, error) {
	sc := redis.NewSentinelClient(opt)
	defer sc.Close()
	hp, err := sc.GetMasterAddrByName(ctx, name).Result()
	if err != nil {
		return "", fmt.Errorf("sentinel %s: get-master-addr-by-name %s: %w", opt.Addr, name, err)
	}
	if len(hp) != 2 {
		return "", fmt.Errorf("sentinel %s: get-master-addr-by-name %s: unexpected reply %q", opt.Addr, name, hp)
	}
	return net.JoinHostPort(hp[0], hp[1]), nil
}

// waitSyncedOn polls master's INFO replication until each of replicas is
// listed with state=online and an offset at least the master's offset at
// the first poll.
func waitSyncedOn(ctx context.Context, master *Server, replicas []*Server) error {
	rdb := redis.NewClient(adminOptions(master))
	defer rdb.Close()
	target := int64(-1)
	var last string
	err := poll(ctx, 50*time.Millisecond, func() (bool, error) {
		info, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return false, err
		}
		r := parseReplication(info)
		if r.role != "master" {
			last = fmt.Sprintf("%s has role %q", master.Addr(), r.role)
			return false, nil
		}
		if target < 0 {
			target = r.offset
		}
		for _, s := range replicas {
			st, ok := r.replicas[s.Addr()]
			switch {
			case !ok:
				last = fmt.Sprintf("replica %s not connected to %s", s.Addr(), master.Addr())
				return false, nil
			case st.state != "online" || st.offset < target:
				last = fmt.Sprintf("replica %s: state=%s offset=%d, want online and >= %d", s.Addr(), st.state, st.offset, target)
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

type replicaState struct {
	state  string
	offset int64
}

type replicationInfo struct {
	role     string
	master   string                  // master_host:master_port, on a replica
	offset   int64                   // master_repl_offset
	replicas map[string]replicaState // by host:port

	masterHost, masterPort string
}

// parseReplication parses INFO replication.
func parseReplication(info string) replicationInfo {
	r := replicationInfo{replicas: map[string]replicaState{}}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		switch {
		case k == "role":
			r.role = v
		case k == "master_host":
			r.masterHost = v
		case k == "master_port":
			r.masterPort = v
		case k == "master_repl_offset":
			r.offset, _ = strconv.ParseInt(v, 10, 64)
		case strings.HasPrefix(k, "slave") && strings.Contains(v, "ip="):
			f := map[string]string{}
			for _, kv := range strings.Split(v, ",") {
				a, b, _ := strings.Cut(kv, "=")
				f[a] = b
			}
			off, _ := strconv.ParseInt(f["offset"], 10, 64)
			r.replicas[net.JoinHostPort(f["ip"], f["port"])] = replicaState{state: f["state"], offset: off}
		}
	}
	if r.masterHost != "" {
		r.master = net.JoinHostPort(r.masterHost, r.masterPort)
	}
	return r
}

// adminOptions are options for lockcheck's own short admin connections to
// s (a data node or a Sentinel), with its password.
func adminOptions(s *Server) *redis.Options {
	return &redis.Options{
		Addr: s.Addr(), Password: s.Password(), MaxRetries: -1, ContextTimeoutEnabled: true, PoolSize: 2,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second,
	}
}

// poll calls cond every interval until it reports true or ctx ends; the
// error then names cond's last error, if any.
func poll(ctx context.Context, interval time.Duration, cond func() (bool, error)) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	var last error
	for {
		ok, err := cond()
		if ok && err == nil {
			return nil
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%w (last error: %v)", ctx.Err(), last)
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

func splitAddr(addr string) (host, port string) {
	host, port, _ = net.SplitHostPort(addr)
	return host, port
}
