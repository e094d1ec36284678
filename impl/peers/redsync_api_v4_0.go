//go:build redsync_v4_0

package peers

import (
	"context"
	"errors"

	redis8 "github.com/go-redis/redis/v8"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	goredis8 "github.com/go-redsync/redsync/v4/redis/goredis/v8"
	"github.com/redis/go-redis/v9"
)

// The parts of redsync's API that its releases changed, for redsync
// v4.0.x to v4.7.x (built with the tag redsync_v4_0): a go-redis v8 client
// (no v9 adapter yet), no TryLock (mutexes make one attempt per
// LockContext), and one error for every refusal (ErrFailed: a lock held by
// another value and an attempt whose nodes failed look alike).

// redsyncSingleTry: see redsync_api.go.
const redsyncSingleTry = true

// redsyncPool is redsync's pool on a go-redis v8 client to the run's
// client's server (its address, credentials and database).
func redsyncPool(rdb redis.UniversalClient) (redsyncredis.Pool, error) {
	o, err := oneServer(rdb, "redsync v4.0-v4.7 (go-redis v8)")
	if err != nil {
		return nil, err
	}
	return goredis8.NewPool(redis8.NewClient(&redis8.Options{
		Addr: o.Addr, Username: o.Username, Password: o.Password, DB: o.DB, MaxRetries: -1,
		DialTimeout: o.DialTimeout, ReadTimeout: o.ReadTimeout, WriteTimeout: o.WriteTimeout, PoolSize: o.PoolSize,
	})), nil
}

// redsyncValueOptions: one try per LockContext; the value is set on grant
// only (a failed attempt is released by redsync itself).
func redsyncValueOptions(string) []redsync.Option { return []redsync.Option{redsync.WithTries(1)} }

// redsyncTryOnce makes one attempt (LockContext with one try).
func redsyncTryOnce(ctx context.Context, mu *redsync.Mutex) error { return mu.LockContext(ctx) }

// redsyncTaken: ErrFailed, the one refusal these releases have.
func redsyncTaken(err error) bool { return errors.Is(err, redsync.ErrFailed) }

// redsyncGone: these releases report a gone hold as (false, nil).
func redsyncGone(error) bool { return false }

// redsyncExtendFailed: likewise (false, nil).
func redsyncExtendFailed(error) bool { return false }
