// Package impl holds the locks under test: a Go port of Redisson's reentrant,
// fair and fenced locks (hash + Lua + pub/sub wake-ups + watchdog), the
// single-instance "simple" lock from the Redis docs, and, in sub-packages,
// adapters for peer libraries (impl/peers) and deliberately broken locks
// (impl/mutants).
//
// Every lock meets one small contract, Locker. The harness (workloads/) drives
// any Locker and detects optional capabilities (Fenced, LeaseWatcher,
// HoldCounter, ...) with type assertions. impl never imports the harness.
package impl

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Sentinel errors shared by every lock kind. Compare with errors.Is: they are
// often wrapped or joined with ctx.Err().
var (
	// ErrNotOwner is returned by Unlock when the handle does not hold the lock
	// (it never did, or its lease ran out and someone else may hold it now).
	ErrNotOwner = errors.New("lock: not held by this owner")
	// ErrNotObtained is returned (joined with ctx.Err()) by Lock when the
	// context ends before the lock is granted.
	ErrNotObtained = errors.New("lock: not obtained")
	// ErrClosed is returned by any call on a handle whose client was closed.
	ErrClosed = errors.New("lock: client closed")
	// ErrAdapter is wrapped by an error that comes from the adapter that
	// serves the lock (a driver process that crashed, broke the protocol
	// or gave no reply in time), not from the lock: what the call took
	// says nothing of the lock's own timing.
	ErrAdapter = errors.New("lock: the adapter failed")
)

// Locker is the contract between a lock implementation and the harness.
//
// A Locker is one handle: one lock name and one owner token. Reentrancy is the
// same handle locking again. A handle may be used by one goroutine at a time.
type Locker interface {
	// Lock blocks until the lock is granted or ctx ends. A lease <= 0 asks for
	// a watchdog-renewed lock (where the lock kind supports it); otherwise the
	// lock expires lease after the grant unless unlocked before.
	// On ctx's end it returns an error that wraps both ErrNotObtained and
	// ctx.Err(), and leaves nothing behind in Redis (no queue entry, no
	// renewed orphan hold).
	Lock(ctx context.Context, lease time.Duration) error
	// TryLock waits at most wait (0: one attempt) for the lock. It reports
	// false with a nil error when the wait ran out while another owner held
	// the lock; a non-nil error means the outcome may be unknown.
	TryLock(ctx context.Context, wait, lease time.Duration) (bool, error)
	// Unlock releases one hold. It returns an error wrapping ErrNotOwner when
	// this handle holds no hold on the lock.
	Unlock(ctx context.Context) error
}

// Maker makes Locker handles for one connection to Redis: one per (lock name,
// owner). Closing it stops every background goroutine of its handles (watchdogs,
// pub/sub) without unlocking anything, as a crashed process would.
type Maker interface {
	NewLocker(name, owner string) Locker
	Close() error
}

// MakerFunc opens a Maker on a go-redis client. It does not own rdb: closing the
// Maker leaves rdb open.
type MakerFunc func(ctx context.Context, rdb redis.UniversalClient) (Maker, error)

// Fenced is implemented by handles whose grants carry a fencing token that
// strictly increases with every grant of the lock, across owners.
type Fenced interface {
	// Token returns the token of the current hold, or 0 when the handle
	// holds nothing.
	Token() int64
}

// Preparer is implemented by handles whose client must be readied before
// its first call: an external driver's process is spawned, prints its
// banner and says hello. The harness calls Prepare, unrecorded, before a
// process's first op, so that the op's time measures the lock and not the
// client's start-up (a JVM's second, counted as waiting on a free lock,
// once made liveness fail). Prepare bounds the start-up itself; ctx ends
// it early. Prepare is idempotent; an error means the client could not be
// readied, and the op that follows meets it too.
type Preparer interface {
	Prepare(ctx context.Context) error
}

// LeaseWatcher is implemented by watchdog-renewed handles.
type LeaseWatcher interface {
	// Lost returns a channel that is closed when the current hold can no
	// longer be guaranteed: the hold is gone in Redis, or no renewal succeeded
	// before the lease could have run out. It is nil when nothing is held.
	Lost() <-chan struct{}
}

// Abandoner is implemented by handles with background renewal. Abandon stops
// renewal without unlocking, so whatever the handle holds expires within one
// lease. The harness abandons the handle of a process it retires.
type Abandoner interface {
	Abandon()
}

// Modes of a read-write lock's sides (Sided.Side).
const (
	ModeRead  = "read"
	ModeWrite = "write"
)

// Sided is implemented by handles of read-write locks. As a Locker such a
// handle is the write side; Side returns the same owner's handle on one
// side, ModeRead or ModeWrite, of the same lock (the read side shares with
// other owners' read sides; the write side excludes every other owner).
// Abandoning the handle (Abandoner) abandons both sides.
type Sided interface {
	Side(mode string) Locker
}

// HoldCounter reports how many times this handle holds the lock.
type HoldCounter interface {
	HoldCount(ctx context.Context) (int, error)
}

// TTLReporter reports the lock's remaining time to live (< 0 when not locked).
type TTLReporter interface {
	RemainTTL(ctx context.Context) (time.Duration, error)
}

// ForceUnlocker deletes the lock whoever holds it.
type ForceUnlocker interface {
	ForceUnlock(ctx context.Context) (bool, error)
}

// Enqueuer is implemented by FIFO locks that can report when a blocking
// request was placed in the queue, for the fairness checker. The callback is
// set before Lock/TryLock and called from the calling goroutine.
type Enqueuer interface {
	OnEnqueued(func(at time.Time))
}

// Freezer is implemented by handles whose lock client runs in a process of
// its own (external drivers). Freeze stops that whole process, background
// renewal included, the way a GC pause or a frozen VM would (SIGSTOP); Thaw
// lets it go on where it stopped (SIGCONT). Both are idempotent. The harness
// freezes such a handle's process for a client stall instead of abandoning
// the handle.
type Freezer interface {
	Freeze() error
	Thaw() error
}

// Interruptible is implemented by handles whose calls cannot always be cut
// off through their context (an external driver's: only a driver that
// announces interrupts can stop a call in flight without dying).
// Interruptible reports whether they can now. A handle without it always
// can: Locker's contract ends every call with its context, an acquire with
// ErrNotObtained and nothing left behind. A caller that may cancel a call
// says so with MarkInterruptible: such a handle then makes the call the way its
// library makes a call that can be interrupted (in Java, the thread-bound
// lockInterruptibly or tryLock, which Thread.interrupt() cuts off).
type Interruptible interface {
	Interruptible() bool
}

type interruptibleKey struct{}

// MarkInterruptible returns ctx marked: its caller may cancel the call made
// with it, and means that as an interrupt (see Interruptible).
func MarkInterruptible(ctx context.Context) context.Context {
	return context.WithValue(ctx, interruptibleKey{}, true)
}

// IsInterruptible reports whether ctx was marked by MarkInterruptible.
func IsInterruptible(ctx context.Context) bool {
	v, _ := ctx.Value(interruptibleKey{}).(bool)
	return v
}

type landedKey struct{}

// OnInterruptLanded returns ctx carrying landed, which a handle that serves
// the call in another process runs once that process confirmed the
// interrupt of the call (InterruptLanded): the call's thread was
// interrupted, or its context cancelled, there. A call in this process has
// it landed when ctx is cancelled.
func OnInterruptLanded(ctx context.Context, landed func()) context.Context {
	return context.WithValue(ctx, landedKey{}, landed)
}

// InterruptLanded runs the function OnInterruptLanded put in ctx, if any.
func InterruptLanded(ctx context.Context) {
	if f, ok := ctx.Value(landedKey{}).(func()); ok {
		f()
	}
}

// Readier is implemented by Makers whose lock clients take long to start
// (a driver process per owner, such as a JVM). Ready blocks until the
// clients the Maker starts ahead of use are ready, or ctx ends; the harness
// calls it before its clock starts, so that no op's latency includes a
// client's start-up.
type Readier interface {
	Ready(ctx context.Context) error
}
