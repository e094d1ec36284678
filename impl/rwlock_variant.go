package impl

import (
	"context"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RWVariant changes parts of read-write handles. It exists for
// impl/mutants, which build broken read-write locks from this port: a
// handle with a non-zero variant is another lock, not Redisson's. The zero
// value changes nothing.
type RWVariant struct {
	// ReadAcquire replaces rwlock_read_acquire.lua (same KEYS, ARGV, returns).
	ReadAcquire *redis.Script
	// ReadRenew replaces rwlock_read_renew.lua (same KEYS, ARGV, returns).
	ReadRenew *redis.Script
	// ReadUnlock replaces rwlock_read_unlock.lua (same KEYS, ARGV, returns).
	ReadUnlock *redis.Script
	// DowngradeRenewsWithWrite gives a read hold first taken while the
	// owner holds the write side no renewal of its own: its watchdog renews
	// while the owner's write field exists, and stops once the write side
	// is released.
	DowngradeRenewsWithWrite bool
}

// RWLockVariant is RWLock with the variant v.
func (c *Client) RWLockVariant(name, owner string, v RWVariant) *RWLock {
	l := c.RWLock(name, owner)
	l.read.variant = &rwVariantState{RWVariant: v, writer: l.write}
	return l
}

// RWLockVariantMaker is RWLockMaker with the variant v.
func RWLockVariantMaker(v RWVariant, opts ...Option) MakerFunc {
	return makerFunc(func(c *Client, name, owner string) Locker { return c.RWLockVariant(name, owner, v) }, opts)
}

// rwVariantState is a read handle's variant and what it needs to apply it.
type rwVariantState struct {
	RWVariant
	writer     *RWHandle   // the owner's write side
	downgraded atomic.Bool // the current read hold began under the write side
}

// readAcquireScript, readRenewScript and readUnlockScript are the read
// side's scripts.
func (h *RWHandle) readAcquireScript() *redis.Script {
	if h.variant != nil && h.variant.ReadAcquire != nil {
		return h.variant.ReadAcquire
	}
	return rwReadAcquire
}

func (h *RWHandle) readRenewScript() *redis.Script {
	if h.variant != nil && h.variant.ReadRenew != nil {
		return h.variant.ReadRenew
	}
	return rwReadRenew
}

func (h *RWHandle) readUnlockScript() *redis.Script {
	if h.variant != nil && h.variant.ReadUnlock != nil {
		return h.variant.ReadUnlock
	}
	return rwReadUnlock
}

// noteGrant records, for DowngradeRenewsWithWrite, whether a first read
// hold began while the owner held the write side.
func (h *RWHandle) noteGrant(before int) {
	if v := h.variant; v != nil && v.DowngradeRenewsWithWrite && before == 0 {
		v.downgraded.Store(v.writer.hold.held() > 0)
	}
}

// renewsWithWrite runs the write side's renewal in place of the read
// side's, for a downgraded hold under DowngradeRenewsWithWrite.
func (h *RWHandle) renewsWithWrite(ctx context.Context) (renewed, applies bool, err error) {
	v := h.variant
	if v == nil || !v.downgraded.Load() {
		return false, false, nil
	}
	n, err := reentrantRenew.Run(ctx, h.c.scripter(false), []string{h.name},
		millis(h.c.opts.watchdogTimeout), h.writeField).Int64()
	return n == 1, true, err
}
