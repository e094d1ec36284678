package impl

import (
	"context"
	"fmt"
	"time"
)

// RefusalsOnFreeLock probes the part of the Locker contract that says a false
// from TryLock means another owner held the lock: on a lock no one else
// touches, it makes n TryLock(wait, lease) + Unlock cycles with l and counts
// the TryLocks that answered false. A correct lock answers 0 at every wait,
// even a wait shorter than a round trip (the wait bounds retries, never a
// request in flight). An error from TryLock or Unlock ends the probe.
func RefusalsOnFreeLock(ctx context.Context, l Locker, wait, lease time.Duration, n int) (int, error) {
	refused := 0
	for range n {
		ok, err := l.TryLock(ctx, wait, lease)
		if err != nil {
			return refused, fmt.Errorf("trylock (wait %v): %w", wait, err)
		}
		if !ok {
			refused++
			continue
		}
		if err := l.Unlock(ctx); err != nil {
			return refused, fmt.Errorf("unlock (wait %v): %w", wait, err)
		}
	}
	return refused, nil
}
