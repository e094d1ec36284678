package impl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrNotSynced is the error (wrapped) of a lock command that no replica
// acknowledged within the WithSyncReplicas timeout. An acquire that gets it
// undoes its grant and retries (Lock) or fails (TryLock without wait time):
// it never reports a hold only the master knows.
var ErrNotSynced = errors.New("lock: no replica acknowledged the lock command (WAIT)")

// errSyncCluster: WAIT must follow the script on the same connection to the
// master that ran it, which a ClusterClient pipeline does not promise.
var errSyncCluster = errors.New("lock: WithSyncReplicas needs a *redis.Client (single Redis or Sentinel FailoverClient), not a ClusterClient")

// DefaultSyncTimeout is the WAIT timeout of WithSyncReplicas when given
// timeout <= 0 (Redisson's slavesSyncTimeout is 1 s; a shorter one keeps a
// lagging replica from stalling every lock command that long).
const DefaultSyncTimeout = 200 * time.Millisecond

// WithSyncReplicas makes every acquire, unlock and renewal script of the
// reentrant, fenced and fair locks run as a pipeline of the script and
// WAIT n timeout on the same connection, as Redisson 3.x does (syncedEval):
//
//   - an acquire that took the lock but that no replica acknowledged (WAIT
//     returned 0) is undone at once (one unlock) and treated as "lock
//     busy": Lock retries after the timeout or an unlock message, TryLock
//     retries within its wait time. Like Redisson's checkLockSyncedSlaves,
//     a partial acknowledgement (0 < acks < n) is accepted;
//   - unlocks and renewals wait for the acknowledgement too, but their
//     outcome stands whatever WAIT says (they already happened on the
//     master; a lost unlock costs liveness, not safety).
//
// It narrows, and does not close, the failover window: WAIT does not roll
// back, Sentinel and Cluster may promote a replica that did not
// acknowledge, and an acquire whose reply was lost is settled by reading
// the hold (without WAIT). n <= 0 turns syncing off (the default). The
// go-redis client must be a *redis.Client (single Redis, or a Sentinel
// FailoverClient); with a ClusterClient every lock command fails.
func WithSyncReplicas(n int, timeout time.Duration) Option {
	return func(o *options) {
		o.syncReplicas = n
		o.syncTimeout = timeout
		if timeout <= 0 {
			o.syncTimeout = DefaultSyncTimeout
		}
	}
}

// scripter returns what lock scripts run on: rdb itself, or, with
// WithSyncReplicas, a scripter that follows each script with WAIT. strict
// makes a missing acknowledgement an ErrNotSynced error of the returned
// command (whose value is still the script's reply).
func (c *Client) scripter(strict bool) redis.Scripter {
	if c.opts.syncReplicas <= 0 {
		return c.rdb
	}
	return syncedScripter{rdb: c.rdb, n: c.opts.syncReplicas, timeout: c.opts.syncTimeout, strict: strict}
}

// syncedScripter runs EVAL/EVALSHA + WAIT in one pipeline (one connection).
type syncedScripter struct {
	rdb     redis.UniversalClient
	n       int
	timeout time.Duration
	strict  bool
}

func (s syncedScripter) Eval(ctx context.Context, script string, keys []string, args ...interface{}) *redis.Cmd {
	return s.run(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.Eval(ctx, script, keys, args...) })
}

func (s syncedScripter) EvalSha(ctx context.Context, sha1 string, keys []string, args ...interface{}) *redis.Cmd {
	return s.run(ctx, func(p redis.Pipeliner) *redis.Cmd { return p.EvalSha(ctx, sha1, keys, args...) })
}

func (s syncedScripter) EvalRO(ctx context.Context, script string, keys []string, args ...interface{}) *redis.Cmd {
	return s.rdb.EvalRO(ctx, script, keys, args...)
}

func (s syncedScripter) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...interface{}) *redis.Cmd {
	return s.rdb.EvalShaRO(ctx, sha1, keys, args...)
}

func (s syncedScripter) ScriptExists(ctx context.Context, hashes ...string) *redis.BoolSliceCmd {
	return s.rdb.ScriptExists(ctx, hashes...)
}

func (s syncedScripter) ScriptLoad(ctx context.Context, script string) *redis.StringCmd {
	return s.rdb.ScriptLoad(ctx, script)
}

func (s syncedScripter) run(ctx context.Context, eval func(redis.Pipeliner) *redis.Cmd) *redis.Cmd {
	if _, ok := s.rdb.(*redis.ClusterClient); ok {
		cmd := redis.NewCmd(ctx)
		cmd.SetErr(errSyncCluster)
		return cmd
	}
	var cmd *redis.Cmd
	var wait *redis.Cmd
	_, _ = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		cmd = eval(p)
		wait = p.Do(ctx, "WAIT", s.n, s.timeout.Milliseconds())
		return nil
	})
	if cmd.Err() != nil || !s.strict {
		return cmd
	}
	switch acks, err := wait.Int64(); {
	case err != nil:
		cmd.SetErr(fmt.Errorf("%w: WAIT %d %d: %w", ErrNotSynced, s.n, s.timeout.Milliseconds(), err))
	case acks < 1:
		cmd.SetErr(fmt.Errorf("%w: WAIT %d %d returned %d", ErrNotSynced, s.n, s.timeout.Milliseconds(), acks))
	}
	return cmd
}

// syncedReply is the []int64 reply of a script whose command carries
// ErrNotSynced.
func syncedReply(cmd *redis.Cmd) ([]int64, bool) {
	raw, ok := cmd.Val().([]interface{})
	if !ok {
		return nil, false
	}
	out := make([]int64, len(raw))
	for i, v := range raw {
		n, ok := v.(int64)
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// undoUnsynced undoes a grant no replica acknowledged: one unlock on a
// fresh bounded context. It returns nil when the grant is gone (the caller
// then acts as if the lock were busy for the sync timeout).
func (c *Client) undoUnsynced(name string, unlock func(context.Context) (int64, error), syncErr error) error {
	cctx, cancel := c.cleanupContext()
	defer cancel()
	if _, err := unlock(cctx); err != nil {
		return fmt.Errorf("lock %q: undo of an unsynced grant failed (the hold may remain until its lease ends): %w", name, errors.Join(syncErr, err))
	}
	return nil
}

// unsynced settles a reentrant acquire whose script ran but no replica
// acknowledged: a grant is undone and reported as a busy lock (retry after
// the sync timeout or an unlock message); a refusal stands as it is.
func (l *ReentrantLock) unsynced(cmd *redis.Cmd, lease time.Duration, syncErr error) (grant, error) {
	vals, ok := syncedReply(cmd)
	if !ok || len(vals) < 2 {
		return grant{}, syncErr
	}
	if vals[0] != 1 {
		return grant{ttl: time.Duration(vals[1]) * time.Millisecond}, nil
	}
	if err := l.c.undoUnsynced(l.name, func(ctx context.Context) (int64, error) { return l.unlockScript(ctx, lease) }, syncErr); err != nil {
		return grant{}, err
	}
	return grant{ttl: l.c.opts.syncTimeout}, nil
}

// unsynced is the fair lock's: a grant is undone (the caller is no longer
// queued and re-enqueues on its next attempt) and reported as a busy lock.
func (l *FairLock) unsynced(cmd *redis.Cmd, once bool, lease time.Duration, syncErr error) ([]int64, error) {
	vals, ok := syncedReply(cmd)
	if !ok || len(vals) < 2 {
		return nil, syncErr
	}
	if vals[0] != 1 || len(vals) != 2 {
		return vals, nil
	}
	if err := l.c.undoUnsynced(l.name, func(ctx context.Context) (int64, error) { return l.unlockScript(ctx, lease) }, syncErr); err != nil {
		return nil, err
	}
	ttl := l.c.opts.syncTimeout.Milliseconds()
	if once {
		return []int64{0, ttl}, nil
	}
	return []int64{0, 0, ttl, 0}, nil
}
