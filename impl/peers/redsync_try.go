//go:build !redsync_v4_0 && !redsync_v4_8

package peers

import (
	"context"

	"github.com/go-redsync/redsync/v4"
)

// redsyncSingleTry says the mutexes make one attempt per LockContext (the
// releases before v4.11.0 have no TryLock): Lock then pauses between its
// calls itself.
const redsyncSingleTry = false

// redsyncValueOptions makes a mutex carry token before it is granted, so
// that Unlock of a failed attempt can clean up.
func redsyncValueOptions(token string) []redsync.Option {
	return []redsync.Option{redsync.WithValue(token)}
}

// redsyncTryOnce makes one attempt.
func redsyncTryOnce(ctx context.Context, mu *redsync.Mutex) error { return mu.TryLockContext(ctx) }
