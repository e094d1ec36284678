package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl/driver"
)

// SentinelOptions configure SentinelTopology.
type SentinelOptions struct {
	// Config is the deployment (zero: a master, 2 replicas, 3 Sentinels,
	// down-after 1 s, failover timeout 3 s: a failover takes 2–3 s).
	Config faults.SentinelConfig
	// Pinned is how many clients (the first ones) reach the master at the
	// address it had at start, as a service behind a DNS name or a virtual
	// IP that still points at the old master would, instead of asking the
	// Sentinels. The others use go-redis FailoverClients.
	Pinned int
	// Firewall makes an nftables Firewall for server↔server partitions.
	Firewall bool
	// PreferFirstReplica gives Nodes[1] replica-priority 1, so that the
	// Sentinels promote it whatever its replication offset.
	PreferFirstReplica bool
}

// SentinelTopology is a master with replicas and Sentinels, all started by
// lockcheck on their own 127.0.0.x addresses; every client connection is a
// go-redis FailoverClient (or a pinned client, see Pinned) that reaches the
// master and replicas through a faults.WireSet of its own (Env.WireSets:
// the wire trace of in-process runs). It returns once every replica
// finished its initial sync.
func SentinelTopology(o SentinelOptions) Topology {
	return func(ctx context.Context, clients int) (_ *Env, err error) {
		env := &Env{}
		defer func() {
			if err != nil {
				_ = env.Close()
			}
		}()
		t, err := faults.StartSentinel(ctx, o.Config)
		if err != nil {
			return nil, err
		}
		env.onClose(t.Close)
		env.Sentinel = t
		if o.Firewall {
			if err := env.addFirewall(ctx); err != nil {
				return nil, err
			}
		}
		if o.PreferFirstReplica && len(t.Nodes) > 1 {
			if err := setConfig(ctx, t.Nodes[1], "replica-priority", "1"); err != nil {
				return nil, err
			}
		}
		if err := t.WaitSynced(ctx); err != nil {
			return nil, err
		}
		master, err := t.CurrentMaster(ctx)
		if err != nil {
			return nil, err
		}
		health := t.NewFailoverClient()
		env.onClose(health.Close)
		env.Health = faults.Ping(health)
		env.Desc = fmt.Sprintf("Sentinel: master %s + %d replicas, Sentinels %v (started by lockcheck), %d FailoverClients, %d clients pinned to %s",
			master, len(t.Nodes)-1, t.SentinelAddrs(), max(0, clients-o.Pinned), min(clients, o.Pinned), master)
		env.addWireSets(clients, isAddrOf(t.Nodes))
		env.Dial = func(_ context.Context, i int) (redis.UniversalClient, error) {
			if i < o.Pinned {
				po := directOptions(master, t.Password())
				if ws := env.wireSet(i); ws != nil {
					po.Dialer = ws.Dialer
				}
				return redis.NewClient(po), nil
			}
			fo := t.FailoverOptions()
			if ws := env.wireSet(i); ws != nil {
				fo.Dialer = ws.Dialer // the Sentinels are dialed directly
			}
			return driver.NewFailoverClient(fo), nil
		}
		return env, nil
	}
}

// addFirewall gives env an nftables Firewall that Close removes.
func (e *Env) addFirewall(ctx context.Context) error {
	fw, err := faults.NewFirewall(ctx)
	if err != nil {
		return err
	}
	e.Firewall = fw
	e.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), faults.DefaultNftTimeout)
		defer cancel()
		return fw.Close(ctx)
	})
	return nil
}

// directOptions are a lock client's options for one Redis address of a
// topology lockcheck started (password is the topology's): no hidden
// retries, ctx deadlines honoured, 1 s timeouts.
func directOptions(addr, password string) *redis.Options {
	return &redis.Options{
		Addr: addr, Password: password, MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
	}
}

func setConfig(ctx context.Context, s *faults.Server, key, value string) error {
	rdb := redis.NewClient(directOptions(s.Addr(), s.Password()))
	defer rdb.Close()
	if err := rdb.ConfigSet(ctx, key, value).Err(); err != nil {
		return fmt.Errorf("config set %s %s on %s: %w", key, value, s.Addr(), err)
	}
	return nil
}

// isAddrOf accepts the addresses of servers.
func isAddrOf(servers []*faults.Server) func(addr string) bool {
	return func(addr string) bool {
		return slices.ContainsFunc(servers, func(s *faults.Server) bool { return s.Addr() == addr })
	}
}

// needSentinel returns the run's Sentinel topology.
func needSentinel(w World) (*faults.Sentinel, error) {
	if w.Env.Sentinel == nil {
		return nil, errors.New("scenario: this scenario needs the Sentinel topology")
	}
	return w.Env.Sentinel, nil
}

// laggingFailover is Sentinel's failover while replication lags: Start
// waits until the replicas are in sync, cuts the master off from the
// lagging replicas (all of them, or only the preferred Nodes[1]) with an
// nftables partition, waits (up to grantWait) until a lock is granted on
// the master meanwhile — a grant the lagging replicas never see — then
// SIGKILLs it (for good, see killMaster). Stop waits until every Sentinel
// names the promoted replica, then heals the partition (bounded by ctx).
func laggingFailover(w World, grantWait time.Duration, onlyPreferred bool) (faults.Fault, error) {
	t, err := needSentinel(w)
	if err != nil {
		return nil, err
	}
	if w.Env.Firewall == nil {
		return nil, errors.New("scenario: laggingFailover needs the topology's Firewall")
	}
	var part, kill faults.Fault
	// Named as the kill it ends with, so that explanations know the
	// window may lose the master's state (model.DefaultLossyFaults).
	target := "master, after a partition from its replicas"
	if onlyPreferred {
		target = "master, after a partition from the preferred replica"
	}
	return faults.Func("sentinel-kill-master", target,
		func(ctx context.Context) error {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := t.WaitSynced(sctx); err != nil {
				return err
			}
			m, err := t.Master(ctx)
			if err != nil {
				return err
			}
			var lagging []string
			for i, n := range t.Nodes {
				if n != m && (!onlyPreferred || i == 1) {
					lagging = append(lagging, n.Addr())
				}
			}
			if len(lagging) == 0 {
				return errors.New("scenario: no replica to lag")
			}
			part = w.Env.Firewall.Partition([]string{m.Addr()}, lagging)
			if err := part.Start(ctx); err != nil {
				return err
			}
			g0, deadline := w.Holders.Grants(), time.Now().Add(grantWait)
			for w.Holders.Grants() == g0 && time.Now().Before(deadline) {
				if err := sleepCtx(ctx, time.Millisecond); err != nil {
					return err
				}
			}
			kill = killMaster(t)
			return kill.Start(ctx)
		},
		func(ctx context.Context) error {
			// Heal only after the promotion: the killed master's kernel
			// still retransmits what its replication socket had sent, and
			// a partition healed before the promotion lets that reach the
			// replica (observed: a grant survived the failover).
			var errs []error
			if kill != nil {
				errs = append(errs, kill.Stop(ctx))
			}
			if part != nil {
				errs = append(errs, part.Stop(ctx))
			}
			if err := errors.Join(errs...); err != nil {
				return err
			}
			return t.WaitSynced(ctx)
		}), nil
}

// idleKill SIGKILLs the Sentinel master at a moment when none of the
// first processes holds a lock (waiting up to a second for one), and heals
// like KillMaster.
func idleKill(w World) (faults.Fault, error) {
	t, err := needSentinel(w)
	if err != nil {
		return nil, err
	}
	kill := killMaster(t)
	return faults.Func("sentinel-kill-master", "idle master",
		func(ctx context.Context) error {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := t.WaitSynced(sctx); err != nil {
				return err
			}
			deadline := time.Now().Add(time.Second)
			for len(w.Holders.Holding()) > 0 && time.Now().Before(deadline) {
				if err := sleepCtx(ctx, time.Millisecond); err != nil {
					return err
				}
			}
			return kill.Start(ctx)
		},
		func(ctx context.Context) error {
			if err := kill.Stop(ctx); err != nil {
				return err
			}
			return t.WaitSynced(ctx)
		}), nil
}

// killMaster SIGKILLs the Sentinels' master (Start). Stop waits until every
// running Sentinel reports another master (bounded by ctx) and leaves the old
// node down for the rest of the run. faults.Sentinel.KillMaster's Stop
// restarts it at once: without persistence it comes back as an empty,
// writable master until REPLICAOF, and a client that asks a Sentinel still
// naming the old address locks there (observed: two grants at once in a
// failover with no lock held), which would blame the locks for the harness.
func killMaster(t *faults.Sentinel) faults.Fault {
	var old string
	return faults.Func("sentinel-kill-master", "master",
		func(ctx context.Context) error {
			m, err := t.Master(ctx)
			if err != nil {
				return err
			}
			old = m.Addr()
			return m.Kill()
		},
		func(ctx context.Context) error {
			if old == "" {
				return nil
			}
			for {
				if allMovedFrom(ctx, t, old) {
					old = ""
					return nil
				}
				if err := sleepCtx(ctx, 100*time.Millisecond); err != nil {
					return fmt.Errorf("sentinels still name the killed master %s: %w", old, err)
				}
			}
		})
}

// allMovedFrom reports whether every running Sentinel names a master other
// than old.
func allMovedFrom(ctx context.Context, t *faults.Sentinel, old string) bool {
	for _, s := range t.Sentinels {
		if !s.Running() || s.Paused() {
			continue
		}
		o := directOptions(s.Addr(), s.Password())
		addr, err := faults.SentinelMasterAddr(ctx, o, t.MasterName())
		if err != nil || addr == old {
			return false
		}
	}
	return true
}

// splitBrain freezes the Sentinel master (SIGSTOP) for longer than
// down-after, so the Sentinels promote a replica, then thaws it: until a
// Sentinel demotes it (about 10 s later) it is a second writable master,
// which pinned clients still use.
func splitBrain(w World) (faults.Fault, error) {
	t, err := needSentinel(w)
	if err != nil {
		return nil, err
	}
	pause := t.PauseMaster()
	return faults.Func("sentinel-pause-master", "master (split brain after SIGCONT)",
		func(ctx context.Context) error {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := t.WaitSynced(sctx); err != nil {
				return err
			}
			return pause.Start(ctx)
		},
		pause.Stop), nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
