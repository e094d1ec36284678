package faults

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// KillMaster returns a fault that SIGKILLs the master serving key's slot
// (Start). Its replica wins the election about 2 s later (with
// NodeTimeout 1 s); writes the dead master acknowledged but had not
// replicated are lost.
//
// Stop waits (bounded by ctx) until every live node agrees that another node
// serves the slot, then restarts the old master: it comes back empty (unless
// the template has persistence), learns from the cluster bus that it was
// failed over and rejoins as a replica of the new master. If ctx ends first,
// Stop leaves it down and says so. Stop without a kill is a no-op.
func (c *Cluster) KillMaster(key string) Fault {
	var killed *Server
	var slot int64
	return &fault{
		name: "cluster-kill-master", target: key,
		start: func(ctx context.Context) error {
			var err error
			if slot, err = c.Slot(ctx, key); err != nil {
				return err
			}
			m, err := c.MasterOf(ctx, key)
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
			if _, err := c.waitSlotMasterNot(ctx, slot, killed.Addr()); err != nil {
				return fmt.Errorf("old master %s left down: %w", killed.Addr(), err)
			}
			if err := killed.Restart(ctx); err != nil {
				return fmt.Errorf("restart old master %s: %w", killed.Addr(), err)
			}
			killed = nil
			return nil
		},
	}
}

// Failover returns a fault that promotes a replica of the master serving
// key's slot with CLUSTER FAILOVER (see ClusterFailover); the replica is
// chosen at Start.
func (c *Cluster) Failover(key string, mode ClusterFailoverMode) Fault {
	var inner Fault
	return &fault{
		name: "cluster-failover", target: key,
		start: func(ctx context.Context) error {
			m, err := c.MasterOf(ctx, key)
			if err != nil {
				return err
			}
			replicas, err := replicasOf(ctx, m)
			if err != nil {
				return err
			}
			if len(replicas) == 0 {
				return fmt.Errorf("cluster failover: master %s has no online replica", m.Addr())
			}
			r, err := c.Node(replicas[0])
			if err != nil {
				return err
			}
			inner = ClusterFailover(adminOptions(r), mode)
			return inner.Start(ctx)
		},
		stop: noop,
	}
}

// waitSlotMasterNot polls until every live node agrees that a node other
// than old serves slot, and returns it.
func (c *Cluster) waitSlotMasterNot(ctx context.Context, slot int64, old string) (string, error) {
	var cur string
	err := poll(ctx, 100*time.Millisecond, func() (bool, error) {
		m, err := c.masterOfSlot(ctx, slot, c.live())
		cur = m
		return err == nil && m != old, err
	})
	if err != nil {
		return "", fmt.Errorf("no failover of slot %d away from %s: %w", slot, old, err)
	}
	return cur, nil
}

// ClusterFailoverMode is the option of CLUSTER FAILOVER.
type ClusterFailoverMode string

// CLUSTER FAILOVER modes.
const (
	// FailoverCoordinated ("") waits for the master to hand over its
	// replication stream: no acknowledged write is lost.
	FailoverCoordinated ClusterFailoverMode = ""
	// FailoverForce skips the handover (the master may be unreachable) but
	// still needs a majority of masters to vote: writes can be lost.
	FailoverForce ClusterFailoverMode = "FORCE"
	// FailoverTakeover needs no vote at all: the replica takes the slots
	// under a new epoch on its own.
	FailoverTakeover ClusterFailoverMode = "TAKEOVER"
)

// ClusterFailover returns a fault that sends CLUSTER FAILOVER [mode] to the
// replica opt reaches and waits (bounded by ctx, or DefaultFailoverWait when
// ctx has no deadline) until that node reports itself a master. Stop does
// nothing: the old master has become its replica. It needs no shell on the
// Redis machines, so it works against remote deployments. opt is copied.
func ClusterFailover(opt *redis.Options, mode ClusterFailoverMode) Fault {
	o := *opt
	o.MaxRetries = -1
	return &fault{
		name: "cluster-failover", target: o.Addr,
		start: func(ctx context.Context) error {
			ctx, cancel := withDefaultTimeout(ctx, DefaultFailoverWait)
			defer cancel()
			rdb := redis.NewClient(&o)
			defer rdb.Close()
			args := []any{"CLUSTER", "FAILOVER"}
			if mode != FailoverCoordinated {
				args = append(args, string(mode))
			}
			if err := rdb.Do(ctx, args...).Err(); err != nil {
				return fmt.Errorf("cluster failover on %s: %w", o.Addr, err)
			}
			return poll(ctx, 50*time.Millisecond, func() (bool, error) {
				info, err := rdb.Info(ctx, "replication").Result()
				if err != nil {
					return false, err
				}
				return parseReplication(info).role == "master", nil
			})
		},
		stop: noop,
	}
}
