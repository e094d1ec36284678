package impl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// unlockAttempt runs an unlock script once with the latch key of the call.
type unlockAttempt func(ctx context.Context, latchKey string) (int64, error)

// unlockWithLatch runs an unlock script with Redisson's unlock latch: one
// request id per call, the same on every attempt, so an attempt that repeats
// one that already ran returns the cached 0/1 instead of releasing a second
// hold (Redisson #4871, #6651).
//
// How a lock kind uses it: its unlock script takes the latch key (built here
// from name) and ARGV latch TTL (Client.latchTTLMillis), as
// reentrant_unlock.lua does; the fair lock's unlock script does the same.
//
// Attempts whose outcome is unknown (no reply: timeout, EOF, reset) are
// repeated up to the Unlock attempts option while ctx lasts; a reply from
// the server (a redis.Error) ends the call. The latch is never deleted: it
// expires after the latch TTL option, which must outlast the retry window
// (Redisson's latch expires too). Deleting it after a first attempt that
// answered, as Redisson does in the background, costs the server one more
// request per lock/unlock cycle and saves only memory: about cycles/s × TTL
// small keys are live at any time.
func (c *Client) unlockWithLatch(ctx context.Context, name string, run unlockAttempt) (int64, error) {
	latch := UnlockLatchName(name, newRequestID())
	var err error
	for attempt := 1; ; attempt++ {
		var res int64
		res, err = run(ctx, latch)
		if err == nil {
			return res, nil
		}
		if attempt >= c.opts.unlockAttempts || ctx.Err() != nil || isServerReply(err) {
			return 0, err
		}
		select {
		case <-ctx.Done():
			return 0, errors.Join(err, ctx.Err())
		case <-time.After(time.Duration(attempt) * 10 * time.Millisecond):
		}
	}
}

// latchTTLMillis is ARGV for the latch TTL.
func (c *Client) latchTTLMillis() int64 { return c.opts.unlockLatchTTL.Milliseconds() }

// isServerReply reports whether err is an error reply from Redis, whose
// outcome is known: the script did not run, or ran and raised.
func isServerReply(err error) bool {
	var rerr redis.Error
	return errors.As(err, &rerr) && !errors.Is(err, redis.Nil)
}

// millis converts a lease to ARGV milliseconds, at least 1.
func millis(d time.Duration) int64 { return max(d.Milliseconds(), 1) }

// isNil reports a nil reply (missing key or field).
func isNil(err error) bool { return errors.Is(err, redis.Nil) }

// releaseHold runs one unlock of a handle's hold through unlockScript (the
// lock kind's latch-guarded unlock script, given the lease to re-arm on a
// partial unlock) and keeps h in step with its answer: 1 released the last
// hold, 0 released one of several, anything else means this owner holds
// nothing (ErrNotOwner). It stops renewal before the script runs when this
// is the final hold, so no renewal can race the unlock.
func (c *Client) releaseHold(ctx context.Context, h *holdState, name, field string, unlockScript func(ctx context.Context, lease time.Duration) (int64, error)) error {
	if err := c.usable(); err != nil {
		return err
	}
	lease := h.beforeUnlock()
	res, err := unlockScript(ctx, lease)
	if err != nil {
		return fmt.Errorf("lock %q: unlock: %w", name, err)
	}
	switch res {
	case 1:
		h.released(true)
		return nil
	case 0:
		h.released(false)
		return nil
	default:
		h.notOwner()
		return fmt.Errorf("lock %q: owner %q: %w", name, field, ErrNotOwner)
	}
}
