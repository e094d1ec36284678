package impl

import "time"

// Defaults of the Client options. They follow Redisson's defaults where
// Redisson has one (reference/redisson-locks.md §7.3).
const (
	// DefaultWatchdogTimeout is Redisson's lockWatchdogTimeout.
	DefaultWatchdogTimeout = 30 * time.Second
	// DefaultUnlockLatchTTL is about Redisson's unlock-latch window with its
	// default retry settings (16-20 s), and covers DefaultUnlockAttempts
	// attempts at go-redis's default 3 s read and write timeouts.
	DefaultUnlockLatchTTL = 20 * time.Second
	// DefaultCleanupTimeout bounds the clean-up a lock runs on a fresh context
	// after the caller's context ended during an acquire.
	DefaultCleanupTimeout = 5 * time.Second
	// DefaultThreadWaitTime is Redisson's fairLockWaitTimeout: how long a fair
	// lock waiter's place is kept beyond the wait ahead of it.
	DefaultThreadWaitTime = 5 * time.Minute
	// DefaultUnlockAttempts is how many times Unlock sends its script (with
	// the same request id) when the outcome of an attempt is unknown.
	DefaultUnlockAttempts = 3
)

// Option configures a Client.
type Option func(*options)

type options struct {
	watchdogTimeout time.Duration
	clientID        string
	unlockLatchTTL  time.Duration
	cleanupTimeout  time.Duration
	unlockAttempts  int
	threadWaitTime  time.Duration
	jitterSeed      uint64
	jitterSeeded    bool
	syncReplicas    int           // WithSyncReplicas (synced.go)
	syncTimeout     time.Duration // WithSyncReplicas
	clock           Clock         // WithClock (clock.go)
}

func defaultOptions() options {
	return options{
		watchdogTimeout: DefaultWatchdogTimeout,
		unlockLatchTTL:  DefaultUnlockLatchTTL,
		cleanupTimeout:  DefaultCleanupTimeout,
		unlockAttempts:  DefaultUnlockAttempts,
		threadWaitTime:  DefaultThreadWaitTime,
		clock:           RealClock,
	}
}

// WithWatchdogTimeout sets the lease of watchdog-renewed holds (Lock or
// TryLock with lease <= 0); the watchdog renews every timeout/3. It is also
// the longest a waiter sleeps between attempts when the lock has no TTL.
// If d <= 0, the default 30 s (DefaultWatchdogTimeout) is used. Tests use
// 100-300 ms.
func WithWatchdogTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.watchdogTimeout = d
		}
	}
}

// WithClientID sets the client id, the first half of every owner field
// (<clientId>:<owner>). If id is empty, the default, a random UUID per
// Client, is used. Two Clients must never share an id.
func WithClientID(id string) Option {
	return func(o *options) {
		if id != "" {
			o.clientID = id
		}
	}
}

// WithUnlockLatchTTL sets how long an unlock latch key
// (redisson_unlock_latch:{name}:<requestId>) lives, that is how long a
// retried unlock of the same call stays idempotent. It must outlast an
// Unlock's retry window: the Unlock attempts option times the longest an
// attempt may wait for its reply (go-redis's write plus read timeout, or
// the ctx deadline with ContextTimeoutEnabled), plus tens of ms of backoff.
// Latches are not deleted (they expire), so about cycles/s × d of them are
// live at any time, some 100 bytes each. If d <= 0, the default 20 s
// (DefaultUnlockLatchTTL) is used.
func WithUnlockLatchTTL(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.unlockLatchTTL = d
		}
	}
}

// WithCleanupTimeout bounds the clean-up a lock does on a fresh context when
// the caller's context ended while an acquire's outcome was unknown. If
// d <= 0, the default 5 s (DefaultCleanupTimeout) is used.
func WithCleanupTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.cleanupTimeout = d
		}
	}
}

// WithUnlockAttempts sets how many times Unlock sends its script, always with
// the same request id (so the latch makes it idempotent), while attempts fail
// with an unknown outcome (timeout, EOF). If n <= 0, the default 3
// (DefaultUnlockAttempts) is used.
func WithUnlockAttempts(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.unlockAttempts = n
		}
	}
}

// WithThreadWaitTime sets the fair lock's threadWaitTime (Redisson's
// fairLockWaitTimeout): a waiter that enqueues gets the deadline of the
// waiter ahead of it (or the lock's TTL) plus d, and is evicted from the
// queue once its deadline passes while it is at the head, whether it still
// polls or not (Redisson's semantics: a live waiter evicted this way
// re-enqueues at the tail). Lock uses d; TryLock with a wait > 0 uses its
// wait instead, as Redisson does. If d <= 0, the default 5 min
// (DefaultThreadWaitTime) is used. Tests use 100 ms - 2 s.
func WithThreadWaitTime(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.threadWaitTime = d
		}
	}
}

// WithJitterSeed seeds the random delays a Client's reentrant and fenced
// waiters take before retrying after an unlock message they lost to another
// waiter (see herdStep). By default the seed is derived from the client id.
func WithJitterSeed(seed uint64) Option {
	return func(o *options) {
		o.jitterSeed = seed
		o.jitterSeeded = true
	}
}
