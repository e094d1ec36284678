package peers

import (
	"context"
	"time"
)

// pauseBefore waits delay before the next attempt of a TryLock whose wait
// ends at until. It reports false, without waiting, when the wait is over
// (no time is left for another attempt) or delay would outlast it only to
// find the wait over; false also when ctx ends meanwhile. A TryLock's wait
// bounds its retries this way, never a request in flight: whatever it
// answers follows the reply to its last attempt.
func pauseBefore(ctx context.Context, until time.Time, delay time.Duration) bool {
	left := time.Until(until)
	if left <= 0 {
		return false
	}
	t := time.NewTimer(min(delay, left))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
