//go:build redsync_v4_8

package peers

import (
	"context"

	"github.com/go-redsync/redsync/v4"
)

// redsync v4.8.x to v4.10.x (built with the tag redsync_v4_8) have the
// go-redis v9 pool and typed errors but no TryLock: one try per
// LockContext, whose refusal is the last attempt's ErrNodeTaken.

// redsyncSingleTry: see redsync_try.go.
const redsyncSingleTry = true

// redsyncValueOptions: one try per LockContext, carrying token before it
// is granted.
func redsyncValueOptions(token string) []redsync.Option {
	return []redsync.Option{redsync.WithTries(1), redsync.WithValue(token)}
}

// redsyncTryOnce makes one attempt (LockContext with one try).
func redsyncTryOnce(ctx context.Context, mu *redsync.Mutex) error { return mu.LockContext(ctx) }
