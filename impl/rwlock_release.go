package impl

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// resolve settles an acquire whose outcome is unknown, as
// ReentrantLock.resolve does: only this owner changes its field of this
// side, so a count above the one held before means the script ran. Applied
// and still wanted: the grant stands; applied after ctx ended: undone with
// one unlock; not applied after ctx ended: the outcome is unknown
// (errInFlight), for the attempt may still be on its way.
func (h *RWHandle) resolve(ctx context.Context, tryErr error, before int, since time.Time, lease time.Duration) (bool, error) {
	cctx, cancel := h.c.cleanupContext()
	defer cancel()
	n, err := h.HoldCount(cctx)
	if err != nil {
		return false, fmt.Errorf("rwlock %q: %s acquire outcome unknown: %w", h.name, h.mode, errors.Join(tryErr, err))
	}
	applied := n > before
	if cerr := ctxEnded(ctx); cerr != nil {
		if applied {
			if _, uerr := h.unlockScript(cctx, lease); uerr != nil {
				return false, fmt.Errorf("rwlock %q: undo of a %s acquire after cancellation failed: %w",
					h.name, h.mode, errors.Join(cerr, uerr))
			}
		}
		return false, errInFlight(h.name, tryErr, cerr)
	}
	if !applied {
		return false, fmt.Errorf("rwlock %q: %s acquire: %w", h.name, h.mode, tryErr)
	}
	if err := h.granted(since, lease, grant{ok: true, count: n}); err != nil {
		return false, err
	}
	return true, nil
}

// Unlock releases one hold of this side. It returns an error wrapping
// ErrNotOwner when the owner holds nothing on this side (also when the
// lock is missing: a late unlock never succeeds). The final unlock of this
// side stops its watchdog before the script runs; an error other than
// ErrNotOwner means the outcome is unknown.
func (h *RWHandle) Unlock(ctx context.Context) error {
	return h.c.releaseHold(ctx, &h.hold, h.name, h.Field(), h.unlockScript)
}

// unlockScript runs the side's unlock script with the latch; it answers 1
// when this side's last hold of the owner went, 0 when one of several did,
// -1 when the owner held none.
func (h *RWHandle) unlockScript(ctx context.Context, lease time.Duration) (int64, error) {
	if h.mode == RWWrite {
		keys := []string{h.name, h.channel, ""}
		return h.c.unlockWithLatch(ctx, h.name, func(ctx context.Context, latch string) (int64, error) {
			keys[2] = latch
			return rwWriteUnlock.Run(ctx, h.c.scripter(false), keys, rwWriteUnlockMessage,
				millis(h.leaseOrWatchdog(lease)), h.writeField, publishCommand, h.c.latchTTLMillis()).Int64()
		})
	}
	keys := []string{h.name, h.channel, RWTimeoutPrefix(h.name, h.readField), suffixKeyPrefix(h.name), ""}
	return h.c.unlockWithLatch(ctx, h.name, func(ctx context.Context, latch string) (int64, error) {
		keys[4] = latch
		return h.readUnlockScript().Run(ctx, h.c.scripter(false), keys, rwReadUnlockMessage,
			h.readField, publishCommand, h.c.latchTTLMillis()).Int64()
	})
}

// suffixKeyPrefix is the part of every timeout key before the owner field:
// {name} (or name when it holds a hash tag), Redisson's getKeyPrefix.
func suffixKeyPrefix(name string) string {
	s := suffixName(name, "")
	return s[:len(s)-1]
}

// renew is the side's watchdog renewal: the write side renews the hash if
// the owner still writes; the read side renews the hash and every timeout
// key of the owner's read holds if it still reads.
func (h *RWHandle) renew(ctx context.Context) (bool, error) {
	if renewed, applies, err := h.renewsWithWrite(ctx); applies {
		return renewed, err
	}
	timeout := millis(h.c.opts.watchdogTimeout)
	var n int64
	var err error
	if h.mode == RWWrite {
		n, err = reentrantRenew.Run(ctx, h.c.scripter(false), []string{h.name}, timeout, h.writeField).Int64()
	} else {
		n, err = h.readRenewScript().Run(ctx, h.c.scripter(false), []string{h.name, suffixKeyPrefix(h.name)},
			timeout, h.readField).Int64()
	}
	return n == 1, err
}

// ForceUnlock deletes the lock whoever holds it, if it is in this side's
// mode, and reports whether it was. This handle's renewal stops.
func (h *RWHandle) ForceUnlock(ctx context.Context) (bool, error) {
	if err := h.c.usable(); err != nil {
		return false, err
	}
	h.hold.abandon()
	msg := rwReadUnlockMessage
	if h.mode == RWWrite {
		msg = rwWriteUnlockMessage
	}
	n, err := rwForceUnlock.Run(ctx, h.c.rdb, []string{h.name, h.channel}, msg, publishCommand, string(h.mode)).Int64()
	return n == 1, err
}

// HoldCount reports the owner's hold count on this side in Redis (0: none).
func (h *RWHandle) HoldCount(ctx context.Context) (int, error) {
	s, err := h.c.rdb.HGet(ctx, h.name, h.Field()).Result()
	if isNil(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

// LockMode reports the lock's mode in Redis: RWRead, RWWrite, or "" when
// the lock is free.
func (h *RWHandle) LockMode(ctx context.Context) (RWMode, error) {
	s, err := h.c.rdb.HGet(ctx, h.name, "mode").Result()
	if isNil(err) {
		return "", nil
	}
	return RWMode(s), err
}

// Lost returns a channel closed when this side's current hold can no longer
// be guaranteed (see ReentrantLock.Lost); nil when this side holds nothing.
func (h *RWHandle) Lost() <-chan struct{} { return h.hold.lostC() }

// Abandon stops this side's renewal without unlocking and forgets its hold.
func (h *RWHandle) Abandon() { h.hold.abandon() }
