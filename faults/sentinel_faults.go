package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// KillMaster returns a fault that SIGKILLs the current master (Start), so
// that the Sentinels fail over to a replica about 2–3 s later (with the
// default SentinelConfig). Writes the master acknowledged but had not yet
// replicated are lost: locks granted just before the kill may vanish.
//
// Stop waits (bounded by ctx) until the Sentinels report another master,
// then restarts the old node and makes it a replica of the new master
// (REPLICAOF), so it never serves its empty dataset to anyone: restarting an
// empty master before the failover would make its replicas resynchronise
// from it and drop everything. If ctx ends before the failover, Stop leaves
// the old master down and says so. Stop without a kill is a no-op.
func (t *Sentinel) KillMaster() Fault {
	var killed *Server
	return &fault{
		name: "sentinel-kill-master", target: t.cfg.MasterName,
		start: func(ctx context.Context) error {
			m, err := t.Master(ctx)
			if err != nil {
				return err
			}
			killed = m
			return m.Kill()
		},
		stop: func(ctx context.Context) error {
			if killed == nil {
				return nil
			}
			newAddr, err := t.waitMasterNot(ctx, killed.Addr())
			if err != nil {
				return fmt.Errorf("old master %s left down: %w", killed.Addr(), err)
			}
			if err := killed.Restart(ctx); err != nil {
				return fmt.Errorf("restart old master %s: %w", killed.Addr(), err)
			}
			if err := replicaOf(ctx, killed, newAddr); err != nil {
				return err
			}
			killed = nil
			return nil
		},
	}
}

// PauseMaster returns a fault that freezes the current master with SIGSTOP
// (Start) and thaws it with SIGCONT (Stop). A pause longer than DownAfter
// makes the Sentinels fail over. After SIGCONT the old master is still a
// writable master, with the data it had, until a Sentinel converts it to a
// replica about 10 s later (measured on 7.0): clients still connected to it
// directly (a lock holder renewing its lease) write into a branch that will
// be thrown away. That split brain is the point of this fault; Stop does not
// wait for it to end (call WaitSynced for that).
func (t *Sentinel) PauseMaster() Fault {
	var paused *Server
	return &fault{
		name: "sentinel-pause-master", target: t.cfg.MasterName,
		start: func(ctx context.Context) error {
			m, err := t.Master(ctx)
			if err != nil {
				return err
			}
			paused = m
			return m.Pause()
		},
		stop: func(context.Context) error {
			if paused == nil || !paused.Running() {
				return nil
			}
			err := paused.Resume()
			paused = nil
			return err
		},
	}
}

// Failover returns SentinelFailover aimed at the first Sentinel of t.
func (t *Sentinel) Failover() Fault {
	return SentinelFailover(adminOptions(t.Sentinels[0]), t.cfg.MasterName)
}

// waitMasterNot polls the Sentinels until they report a master other than
// old, and returns it.
func (t *Sentinel) waitMasterNot(ctx context.Context, old string) (string, error) {
	var cur string
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		addr, err := t.CurrentMaster(ctx)
		cur = addr
		return err == nil && addr != old, err
	})
	if err != nil {
		return "", fmt.Errorf("no failover away from %s: %w", old, err)
	}
	return cur, nil
}

// DefaultFailoverWait bounds how long SentinelFailover and ClusterFailover
// wait for the new master when ctx has no deadline.
const DefaultFailoverWait = 30 * time.Second

// SentinelFailover returns a fault that forces a failover with SENTINEL
// FAILOVER <master>, sent to the Sentinel that opt reaches: no agreement is
// needed, the Sentinel promotes a replica at once (acknowledged writes not yet
// replicated are lost, as in any failover). Start returns once that Sentinel
// reports a new master address (bounded by ctx, or DefaultFailoverWait when
// ctx has no deadline). Stop does nothing: the old master is demoted to a
// replica by Sentinel itself. It needs no shell on the Redis machines, so it
// works against remote deployments. opt is copied.
func SentinelFailover(opt *redis.Options, master string) Fault {
	o := *opt
	o.MaxRetries = -1
	return &fault{
		name: "sentinel-failover", target: master,
		start: func(ctx context.Context) error {
			ctx, cancel := withDefaultTimeout(ctx, DefaultFailoverWait)
			defer cancel()
			old, err := SentinelMasterAddr(ctx, &o, master)
			if err != nil {
				return err
			}
			sc := redis.NewSentinelClient(&o)
			defer sc.Close()
			if err := sc.Failover(ctx, master).Err(); err != nil {
				return fmt.Errorf("sentinel %s: failover %s: %w", o.Addr, master, err)
			}
			return poll(ctx, 100*time.Millisecond, func() (bool, error) {
				addr, err := SentinelMasterAddr(ctx, &o, master)
				return err == nil && addr != old, err
			})
		},
		stop: noop,
	}
}

// replicaOf makes s a replica of master (host:port).
func replicaOf(ctx context.Context, s *Server, master string) error {
	rdb := redis.NewClient(adminOptions(s))
	defer rdb.Close()
	host, port := splitAddr(master)
	if err := rdb.ReplicaOf(ctx, host, port).Err(); err != nil {
		return fmt.Errorf("replicaof %s on %s: %w", master, s.Addr(), err)
	}
	return nil
}

func withDefaultTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}
