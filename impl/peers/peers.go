// Package peers adapts other Go lock libraries to impl.Locker, configured as
// their users would configure them, so the harness can check and benchmark
// them beside lockcheck's own locks:
//
//   - github.com/go-redsync/redsync/v4 (v4.17.0, go-redis v9 pool, one node)
//   - github.com/bsm/redislock
//
// Each library appears twice: with its defaults, and with a tuned retry
// interval (the "-tuned" subjects). Neither library has a blocking Lock that
// waits until a context ends (redsync gives up after 32 tries, redislock
// after its retry strategy runs out), so the adapters' Lock calls the
// library's acquire again until it succeeds or ctx ends, keeping one token
// for the whole call so that an attempt whose reply was lost is recognised
// (redislock) or released (redsync) rather than stranded. Whenever Lock or
// TryLock gives up after an attempt whose outcome it could not read, it
// deletes its token with a compare-and-delete on a fresh bounded context, so
// nothing is left behind. TryLock's wait bounds the retries, never a
// request in flight: it answers false only after an attempt Redis answered
// with "held" (a wait shorter than a round trip once made both libraries
// refuse a free lock, because the deadline cut the request off).
//
// Neither library has a watchdog; both have a manual extend (redsync Extend,
// redislock Refresh). A lease <= 0 therefore takes Options.WatchdogLease and a
// goroutine owned by the handle extends it every third of it, the way both
// projects' docs suggest; Unlock and Abandon stop it and wait for it.
// Errors map to impl.ErrNotOwner and impl.ErrNotObtained (errors.Is).
package peers

import (
	"errors"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// DefaultWatchdogLease is the lease an adapter takes for Lock(ctx, 0) and
// extends every third of it, as Redisson's watchdog does.
const DefaultWatchdogLease = 30 * time.Second

// cleanupTimeout bounds the compare-and-delete after an attempt with an
// unknown outcome.
const cleanupTimeout = time.Second

// Options configures the adapters. The zero value (or nil) gives the defaults.
type Options struct {
	// WatchdogLease is the lease used when Lock/TryLock get a lease <= 0; the
	// adapter extends it every WatchdogLease/3. Default DefaultWatchdogLease.
	WatchdogLease time.Duration
	// Seed seeds the retry delays of the redsync subjects (each handle
	// mixes it with its lock name and owner). Default 0.
	Seed uint64
}

func (o *Options) watchdogLease() time.Duration {
	if o != nil && o.WatchdogLease > 0 {
		return o.WatchdogLease
	}
	return DefaultWatchdogLease
}

func (o *Options) seed() uint64 {
	if o != nil {
		return o.Seed
	}
	return 0
}

// Subject is a named peer lock the harness can run.
type Subject struct {
	Name string // e.g. "redsync-tuned"
	Doc  string // one line: library, version, configuration
	Open impl.MakerFunc
	// Module is the library's Go module path (its version is the build's).
	Module string
	// Tuned says what the subject changes from the library's defaults (""
	// for the defaults people run).
	Tuned string
	// AttemptsHold says a failed attempt may hold the lock for a moment
	// (subject.Subject.AttemptsHold): redsync's LockContext releases an
	// attempt that did not win in time (its reply came after the attempt's
	// timeout, expiry × timeoutFactor) and tries again, as the RedLock
	// algorithm does on any number of nodes.
	AttemptsHold bool
}

// The peer libraries' module paths.
const (
	redsyncModule   = "github.com/go-redsync/redsync/v4"
	redislockModule = "github.com/bsm/redislock"
)

// All returns the peer subjects with default Options:
// "redsync", "redsync-tuned", "redislock", "redislock-tuned".
func All() []Subject {
	return []Subject{
		{Name: "redsync", Doc: "go-redsync/redsync v4.17.0 at its defaults: expiry = lease, 32 tries, 50-250 ms random retry delay (seeded)",
			Open: Redsync(nil), Module: redsyncModule, AttemptsHold: true},
		{Name: "redsync-tuned", Doc: "go-redsync/redsync v4.17.0 tuned: retry delay 5-15 ms (seeded jitter)",
			Open: RedsyncTuned(nil), Module: redsyncModule, Tuned: "retry delay 5-15 ms", AttemptsHold: true},
		{Name: "redislock", Doc: "bsm/redislock at the retry of its docs' example: LinearBackoff(100 ms) (its own default, NoRetry, cannot wait)",
			Open: Redislock(nil), Module: redislockModule},
		{Name: "redislock-tuned", Doc: "bsm/redislock tuned: LinearBackoff(10 ms)",
			Open: RedislockTuned(nil), Module: redislockModule, Tuned: "retry LinearBackoff(10 ms)"},
	}
}

// errInFlight is part of the error of an acquire whose ctx ended while its
// request may still be on its way to Redis: the outcome is unknown, so the
// error does not wrap impl.ErrNotObtained (which promises nothing was left).
var errInFlight = errors.New("acquire cancelled with its request in flight: outcome unknown")
