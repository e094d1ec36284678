package peers

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

var (
	//go:embed release.lua
	releaseSrc    string
	releaseScript = redis.NewScript(releaseSrc)
)

// Redislock returns a MakerFunc for bsm/redislock locks polling at the retry
// of redislock's documented example, LinearBackoff(100 ms). (Its Options
// default, NoRetry, makes one attempt and cannot wait; a user who needs to
// wait picks a strategy, and the example is what they copy.) Lock passes the
// unlimited strategy to Obtain and calls Obtain again when Obtain's own
// deadline (ttl, when ctx has none) runs out, until ctx ends.
func Redislock(o *Options) impl.MakerFunc {
	return redislockMaker(o, func() redislock.RetryStrategy { return redislock.LinearBackoff(100 * time.Millisecond) })
}

// RedislockTuned is Redislock polling every 10 ms (LinearBackoff(10 ms)).
func RedislockTuned(o *Options) impl.MakerFunc {
	return redislockMaker(o, func() redislock.RetryStrategy { return redislock.LinearBackoff(10 * time.Millisecond) })
}

func redislockMaker(o *Options, strategy func() redislock.RetryStrategy) impl.MakerFunc {
	lease := o.watchdogLease()
	return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		c, err := redislockClient(rdb)
		if err != nil {
			return nil, err
		}
		return openMaker(rdb, func(m *maker, name, owner string) impl.Locker {
			return &redislockLocker{m: m, c: c, name: name, owner: owner, strategy: strategy, watchdogLease: lease}
		})
	}
}

// redislockLocker is one handle. Each Lock call obtains with its own token
// (Options.Token), so a repeated Obtain with that token after an unread reply
// re-acquires rather than strands (redislock's obtain script accepts the
// holder's own token).
type redislockLocker struct {
	m             *maker
	c             *redislock.Client
	name, owner   string
	strategy      func() redislock.RetryStrategy
	watchdogLease time.Duration

	seq  uint64
	lock *redislock.Lock // current hold, nil if none
	ren  *impl.Renewal
}

// Lock obtains with the subject's strategy until granted or ctx ends.
func (l *redislockLocker) Lock(ctx context.Context, lease time.Duration) error {
	token, lease, watchdog, err := l.begin(lease)
	if err != nil {
		return err
	}
	for {
		lock, err := l.c.Obtain(ctx, l.name, lease, redislockOptions(token, l.strategy()))
		if err == nil {
			l.granted(lock, lease, watchdog)
			return nil
		}
		if ctx.Err() == nil && (errors.Is(err, redislock.ErrNotObtained) || errors.Is(err, context.DeadlineExceeded)) {
			continue // Obtain's own ttl deadline (ctx without one), or strategy exhausted
		}
		return l.giveUp(ctx, token, err)
	}
}

// TryLock makes one attempt (Obtain with NoRetry) and, while wait lasts,
// another after each backoff of the subject's strategy. The wait bounds the
// retries, never a request in flight: false follows an attempt Redis
// answered with "held by another token".
func (l *redislockLocker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	until := time.Now().Add(wait)
	token, lease, watchdog, err := l.begin(lease)
	if err != nil {
		return false, err
	}
	strategy := l.strategy()
	for {
		lock, err := l.c.Obtain(ctx, l.name, lease, redislockOptions(token, redislock.NoRetry()))
		switch {
		case err == nil:
			l.granted(lock, lease, watchdog)
			return true, nil
		case !errors.Is(err, redislock.ErrNotObtained):
			return false, l.giveUp(ctx, token, err)
		}
		if !pauseBefore(ctx, until, strategy.NextBackoff()) {
			if ctx.Err() != nil {
				return false, fmt.Errorf("redislock %q: %w", l.name, errors.Join(impl.ErrNotObtained, ctx.Err()))
			}
			return false, nil
		}
	}
}

// begin starts an acquire: its token (one per call, so that a repeated
// Obtain after an unread reply re-acquires rather than strands), its
// effective lease, and whether the hold is watchdog-renewed.
func (l *redislockLocker) begin(lease time.Duration) (string, time.Duration, bool, error) {
	if l.m.closed.Load() {
		return "", 0, false, impl.ErrClosed
	}
	watchdog := lease <= 0
	if watchdog {
		lease = l.watchdogLease
	}
	l.seq++
	return l.owner + ":" + strconv.FormatUint(l.seq, 10), lease, watchdog, nil
}

// giveUp ends an acquire whose last attempt failed with err (not "held"):
// the attempt may have landed, so it takes back token first.
func (l *redislockLocker) giveUp(ctx context.Context, token string, err error) error {
	cctx, cancel := cleanupCtx(ctx)
	cerr := releaseScript.Run(cctx, l.m.rdb, []string{l.name}, token).Err()
	cancel()
	switch {
	case cerr != nil:
		return fmt.Errorf("redislock %q: %w", l.name, errors.Join(err, cerr))
	case ctx.Err() != nil && !errors.Is(err, redislock.ErrNotObtained):
		// The SET may still be on its way: the release above ran on
		// another connection and may have come first.
		return fmt.Errorf("redislock %q: %w", l.name, errors.Join(errInFlight, err, ctx.Err()))
	case ctx.Err() != nil:
		return fmt.Errorf("redislock %q: %w", l.name, errors.Join(impl.ErrNotObtained, ctx.Err()))
	}
	return fmt.Errorf("redislock %q: %w", l.name, err)
}

func (l *redislockLocker) granted(lock *redislock.Lock, lease time.Duration, watchdog bool) {
	l.ren.Stop()
	l.lock, l.ren = lock, nil
	if watchdog {
		l.ren = l.m.startRenewer(lease, func(ctx context.Context) (bool, error) {
			err := lock.Refresh(ctx, lease, nil)
			if errors.Is(err, redislock.ErrNotObtained) {
				return false, nil
			}
			return err == nil, err
		})
	}
}

// Unlock stops the renewal, then calls Release (compare-and-delete).
func (l *redislockLocker) Unlock(ctx context.Context) error {
	if l.m.closed.Load() {
		return impl.ErrClosed
	}
	if l.lock == nil {
		return fmt.Errorf("redislock %q, owner %q: %w", l.name, l.owner, impl.ErrNotOwner)
	}
	l.ren.Stop()
	l.ren = nil
	err := l.lock.Release(ctx)
	switch {
	case err == nil:
		l.lock = nil
		return nil
	case errors.Is(err, redislock.ErrLockNotHeld):
		l.lock = nil
		return fmt.Errorf("redislock %q, owner %q: %w", l.name, l.owner, errors.Join(impl.ErrNotOwner, err))
	}
	return fmt.Errorf("redislock %q: unlock: %w", l.name, err)
}

// Abandon stops renewal without unlocking: the hold expires within a lease.
func (l *redislockLocker) Abandon() {
	l.ren.Stop()
	l.ren, l.lock = nil, nil
}

// Lost is closed when a watchdog-renewed hold could not be refreshed; nil
// without a watchdog-renewed hold.
func (l *redislockLocker) Lost() <-chan struct{} { return l.ren.Lost() }

var (
	_ impl.Abandoner    = (*redislockLocker)(nil)
	_ impl.LeaseWatcher = (*redislockLocker)(nil)
)
