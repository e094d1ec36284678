//go:build !redsync_v4_0 && !redsync_v4_8 && !redsync_v4_11

package peers

import (
	"errors"

	"github.com/go-redsync/redsync/v4"
)

// redsyncGone reports whether err says the hold had already run out
// (redsync v4.12.0 and later).
func redsyncGone(err error) bool { return errors.Is(err, redsync.ErrLockAlreadyExpired) }
