package impl

import (
	"context"
	"time"
)

// holdAcquirer is what acquireHold needs of a reentrant lock kind's handle
// (ReentrantLock, RWHandle): one attempt of its acquire script, the
// settling of an attempt whose outcome is unknown, and the recording of a
// grant.
type holdAcquirer interface {
	tryOnce(ctx context.Context, lease time.Duration) (grant, error)
	resolve(ctx context.Context, tryErr error, before int, since time.Time, lease time.Duration) (bool, error)
	granted(since time.Time, lease time.Duration, g grant) error
}

// acquireHold is the acquire of the reentrant lock kinds: waitAcquire on
// channel with h's attempts, the attempt of unknown outcome settled by
// h.resolve, the grant recorded by h.granted; before is the count h held
// before the call. wait < 0 waits until ctx ends.
func (c *Client) acquireHold(ctx context.Context, h holdAcquirer, channel string, cr *crowd, before int, wait, lease time.Duration) (bool, error) {
	if err := c.usable(); err != nil {
		return false, err
	}
	var (
		since time.Time
		g     grant
	)
	try := func(ctx context.Context) (bool, time.Duration, error) {
		since = time.Now()
		var err error
		g, err = h.tryOnce(ctx, lease)
		return g.ok, g.ttl, err
	}
	switch out, err := c.waitAcquire(ctx, channel, wait, cr, try); out {
	case waitUncertain:
		return h.resolve(ctx, err, before, since, lease)
	case waitTimedOut, waitStopped:
		return false, err
	}
	if err := h.granted(since, lease, g); err != nil {
		return false, err // Client closed: the hold is not renewed and expires
	}
	return true, nil
}
