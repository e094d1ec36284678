package impl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// RWMode is the side of a read-write lock a handle takes.
type RWMode string

// The two sides of a read-write lock.
const (
	RWRead  RWMode = "read"
	RWWrite RWMode = "write"
)

// RWLock is one owner's pair of handles on a Redisson-compatible read-write
// lock (RReadWriteLock), wire-compatible with Redisson's RedissonReadLock
// and RedissonWriteLock:
//   - the hash <name> has a field mode (read or write) and one field per
//     hold kind of each owner: <clientId>:<owner> counts its read holds,
//     <clientId>:<owner>:write its write holds;
//   - every read hold n of an owner has a timeout key
//     {<name>}:<clientId>:<owner>:rwlock_timeout:<n> with that hold's lease,
//     from which a read unlock re-arms the hash;
//   - holders publish on redisson_rwlock:{<name>} when the hash goes.
//
// Guarantees (Redisson's): many owners hold the read lock at once; the write
// lock excludes every other owner, reader or writer; both sides are
// reentrant; the write holder may take the read lock (downgrade) and keeps
// it after releasing the write lock; a read holder asking for the write lock
// waits like any other owner (no upgrade: it waits for itself, until its
// wait ends). With lease <= 0 a hold is renewed by the Client's watchdog:
// the read side renews the hash and every timeout key of the owner's read
// holds, the write side the hash.
type RWLock struct {
	read, write *RWHandle
}

// RWLock returns owner's handles on the read-write lock name. As for
// Reentrant, the owner token plays the role of Redisson's thread id.
func (c *Client) RWLock(name, owner string) *RWLock {
	return &RWLock{read: newRWHandle(c, name, owner, RWRead), write: newRWHandle(c, name, owner, RWWrite)}
}

func newRWHandle(c *Client, name, owner string, mode RWMode) *RWHandle {
	field := OwnerField(c.id, owner)
	return &RWHandle{
		c:          c,
		name:       name,
		mode:       mode,
		readField:  field,
		writeField: field + ":write",
		channel:    prefixName("redisson_rwlock", name),
	}
}

// ReadLock is the read side (RReadWriteLock.readLock).
func (l *RWLock) ReadLock() *RWHandle { return l.read }

// WriteLock is the write side (RReadWriteLock.writeLock).
func (l *RWLock) WriteLock() *RWHandle { return l.write }

// RWTimeoutPrefix is the prefix of the timeout keys of an owner's read holds
// (Redisson's getReadWriteTimeoutNamePrefix): {name}:<field>:rwlock_timeout,
// followed by :<n> for the n-th hold.
func RWTimeoutPrefix(name, readField string) string {
	return suffixName(name, readField) + ":rwlock_timeout"
}

// suffixName is Redisson's suffixName: "{" + name + "}:" + suffix, or
// name + ":" + suffix when name already holds a hash tag.
func suffixName(name, suffix string) string {
	if strings.Contains(name, "{") {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

// RWHandle is one side (read or write) of one owner's handle on a read-write
// lock. It meets Locker and the capabilities of a watchdog-renewed lock. A
// handle is used by one goroutine at a time; the read side and the write
// side of one RWLock are two handles, each with its own hold count and
// watchdog.
type RWHandle struct {
	c          *Client
	name       string
	mode       RWMode
	readField  string
	writeField string
	channel    string

	hold    holdState
	crowd   crowd
	variant *rwVariantState // read side of a variant (rwlock_variant.go); nil: Redisson's
}

var (
	_ Locker        = (*RWHandle)(nil)
	_ LeaseWatcher  = (*RWHandle)(nil)
	_ Abandoner     = (*RWHandle)(nil)
	_ HoldCounter   = (*RWHandle)(nil)
	_ ForceUnlocker = (*RWHandle)(nil)
)

// Mode is the side this handle takes.
func (h *RWHandle) Mode() RWMode { return h.mode }

// Field is the hash field that counts this side's holds of the owner.
func (h *RWHandle) Field() string {
	if h.mode == RWWrite {
		return h.writeField
	}
	return h.readField
}

// Lock blocks until this side is granted or ctx ends (then the error wraps
// ErrNotObtained and ctx.Err()). lease <= 0 asks for a watchdog-renewed hold.
func (h *RWHandle) Lock(ctx context.Context, lease time.Duration) error {
	_, err := h.acquire(ctx, -1, lease)
	return err
}

// TryLock waits at most wait (<= 0: one attempt) and reports false with a
// nil error when the other side or another writer held the lock all that
// time. A non-nil error means the outcome was not established.
func (h *RWHandle) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return h.acquire(ctx, max(wait, 0), lease)
}

func (h *RWHandle) acquire(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return h.c.acquireHold(ctx, h, h.channel, &h.crowd, h.hold.held(), wait, lease)
}

// granted records a grant of this side (acquireHold, resolve).
func (h *RWHandle) granted(since time.Time, lease time.Duration, g grant) error {
	h.noteGrant(g.count - 1)
	return h.hold.granted(h.c, since, lease, g.count, h.renew)
}

// tryOnce runs the side's acquire script once. A reply that WAIT could not
// confirm (WithSyncReplicas) counts as an unknown outcome.
func (h *RWHandle) tryOnce(ctx context.Context, lease time.Duration) (grant, error) {
	leaseMs := millis(h.leaseOrWatchdog(lease))
	var cmd *redis.Cmd
	if h.mode == RWWrite {
		cmd = rwWriteAcquire.Run(ctx, h.c.scripter(true), []string{h.name}, leaseMs, h.writeField)
	} else {
		keys := []string{h.name, RWTimeoutPrefix(h.name, h.readField)}
		cmd = h.readAcquireScript().Run(ctx, h.c.scripter(true), keys, leaseMs, h.readField, h.writeField)
	}
	vals, err := cmd.Int64Slice()
	if err != nil {
		return grant{}, err
	}
	if len(vals) < 2 {
		return grant{}, fmt.Errorf("rwlock %q: %s acquire script returned %v", h.name, h.mode, vals)
	}
	if vals[0] != 1 {
		return grant{ttl: time.Duration(vals[1]) * time.Millisecond}, nil
	}
	return grant{ok: true, count: int(vals[1])}, nil
}

func (h *RWHandle) leaseOrWatchdog(lease time.Duration) time.Duration {
	if lease <= 0 {
		return h.c.opts.watchdogTimeout
	}
	return lease
}
