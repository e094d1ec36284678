package impl

import "time"

// Defaults of the Client options. They follow Redisson's defaults where
// Redisson has one (reference/redisson-locks.md §7.3).
const (
	// DefaultWatchdogTimeout is Redisson's lockWatchdogTimeout.
	DefaultWatchdogTimeout = 30 * time.Second
	// DefaultUnlockLatchTTL is about Redisson's unlock-latch window with its
	// default retry settings (16-20 s).
	DefaultUnlockLatchTTL = 20 * time.Second
	// DefaultCleanupTimeout bounds the clean-up a lock runs on a fresh context
	// after the caller's context ended during an acquire.
	DefaultCleanupTimeout = 5 * time.Second
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
}

func defaultOptions() options {
	return options{
		watchdogTimeout: DefaultWatchdogTimeout,
		unlockLatchTTL:  DefaultUnlockLatchTTL,
		cleanupTimeout:  DefaultCleanupTimeout,
		unlockAttempts:  DefaultUnlockAttempts,
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
// retried unlock of the same call stays idempotent. If d <= 0, the default
// 20 s (DefaultUnlockLatchTTL) is used.
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
