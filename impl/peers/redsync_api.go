//go:build !redsync_v4_0

package peers

import (
	"errors"

	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
)

// The parts of redsync's API that its releases changed, for redsync v4.8
// and later (go-redis v9, typed errors). A build with the tag
// redsync_v4_0 uses redsync_api_v4_0.go instead: lockcheck builds that
// for redsync@v4.0.x to v4.7.x (a generated module, see
// workloads/catalog/versions_go.go). TryLock (v4.11.0) and
// ErrLockAlreadyExpired (v4.12.0) have their own files, per era.

// redsyncPool is redsync's pool on the run's client.
func redsyncPool(rdb redis.UniversalClient) (redsyncredis.Pool, error) {
	return goredis.NewPool(rdb), nil
}

// redsyncTaken reports whether err says Redis answered "held by another
// value".
func redsyncTaken(err error) bool {
	var taken *redsync.ErrTaken
	var nodeTaken *redsync.ErrNodeTaken
	return errors.As(err, &taken) || errors.As(err, &nodeTaken)
}

// redsyncExtendFailed reports whether err says an extend found the hold
// gone.
func redsyncExtendFailed(err error) bool { return errors.Is(err, redsync.ErrExtendFailed) }
