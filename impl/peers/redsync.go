package peers

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/go-redsync/redsync/v4"
	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// Redsync returns a MakerFunc for redsync mutexes at redsync's defaults
// (32 tries per LockContext, retry delay uniform in 50-250 ms, drift factor
// 0.01, per-attempt timeout 5% of the expiry) on one go-redis v9 pool. The
// expiry is the lease of each call. The retry delay is drawn from a
// per-handle *rand.Rand seeded from Options.Seed, the name and owner (the
// distribution of redsync's default, not its global source).
func Redsync(o *Options) impl.MakerFunc {
	return redsyncMaker(o, 50*time.Millisecond, 200*time.Millisecond)
}

// RedsyncTuned is Redsync with a short retry delay: uniform in 5-15 ms.
func RedsyncTuned(o *Options) impl.MakerFunc {
	return redsyncMaker(o, 5*time.Millisecond, 10*time.Millisecond)
}

// redsyncMaker makes handles whose retry delay is uniform in
// [minDelay, minDelay+spread).
func redsyncMaker(o *Options, minDelay, spread time.Duration) impl.MakerFunc {
	lease, seed := o.watchdogLease(), o.seed()
	return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		pool, err := redsyncPool(rdb)
		if err != nil {
			return nil, err
		}
		rs := redsync.New(pool)
		return openMaker(rdb, func(m *maker, name, owner string) impl.Locker {
			h := fnv.New64a()
			h.Write([]byte(name + "\x00" + owner))
			rnd := rand.New(rand.NewPCG(seed, h.Sum64()))
			l := &redsyncLocker{m: m, rs: rs, name: name, owner: owner, watchdogLease: lease}
			// Called only from the goroutine using the handle.
			l.delay = func(int) time.Duration { return minDelay + time.Duration(rnd.Int64N(int64(spread))) }
			l.opts = append(l.opts, redsync.WithRetryDelayFunc(l.delay))
			return l
		})
	}
}

// redsyncLocker is one handle: a fresh redsync.Mutex per Lock call (the
// expiry is a Mutex option), whose value is this call's token.
type redsyncLocker struct {
	m             *maker
	rs            *redsync.Redsync
	name, owner   string
	opts          []redsync.Option
	delay         func(try int) time.Duration
	watchdogLease time.Duration

	seq uint64
	mu  *redsync.Mutex // current hold, nil if none
	ren *impl.Renewal
}

func (l *redsyncLocker) newMutex(lease time.Duration) *redsync.Mutex {
	l.seq++
	token := l.owner + ":" + strconv.FormatUint(l.seq, 10)
	opts := append([]redsync.Option{
		redsync.WithExpiry(lease),
		redsync.WithGenValueFunc(func() (string, error) { return token, nil }),
	}, redsyncValueOptions(token)...)
	opts = append(opts, l.opts...)
	return l.rs.NewMutex(l.name, opts...)
}

// redsyncContended reports whether err says the lock was not obtained
// without an error of its own: held by someone else, or redsync's tries
// ran out.
func redsyncContended(err error) bool {
	return errors.Is(err, redsync.ErrFailed) || redsyncTaken(err)
}

// Lock calls LockContext (32 tries) again until it succeeds or ctx ends:
// redsync gives up after its tries, which the contract does not allow.
func (l *redsyncLocker) Lock(ctx context.Context, lease time.Duration) error {
	mu, lease, watchdog, err := l.begin(lease)
	if err != nil {
		return err
	}
	for {
		err := mu.LockContext(ctx)
		if err == nil {
			l.granted(mu, lease, watchdog)
			return nil
		}
		attemptTimeout := errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
		if ctx.Err() == nil && (redsyncContended(err) || attemptTimeout) {
			if redsyncSingleTry {
				pauseBefore(ctx, time.Now().Add(time.Hour), l.delay(1))
			}
			continue // tries exhausted, or redsync's per-attempt timeout
		}
		return l.giveUp(ctx, mu, err)
	}
}

// TryLock makes one attempt (TryLockContext) and, while wait lasts,
// another after each retry delay. The wait bounds the retries, never a
// request in flight: false follows an attempt Redis answered with "taken".
// Any other failed attempt (redsync's per-attempt timeout, a grant that came
// too late for the drift and was released) has an outcome the caller cannot
// know: it is cleaned up and returned as an error.
func (l *redsyncLocker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	until := time.Now().Add(wait)
	mu, lease, watchdog, err := l.begin(lease)
	if err != nil {
		return false, err
	}
	for try := 1; ; try++ {
		err := redsyncTryOnce(ctx, mu)
		switch {
		case err == nil:
			l.granted(mu, lease, watchdog)
			return true, nil
		case !redsyncTaken(err):
			return false, l.giveUp(ctx, mu, err)
		}
		if !pauseBefore(ctx, until, l.delay(try)) {
			if ctx.Err() != nil {
				return false, fmt.Errorf("redsync %q: %w", l.name, errors.Join(impl.ErrNotObtained, ctx.Err()))
			}
			return false, nil
		}
	}
}

// begin starts an acquire: a fresh mutex with this call's token and the
// effective lease, and whether the hold is watchdog-renewed.
func (l *redsyncLocker) begin(lease time.Duration) (*redsync.Mutex, time.Duration, bool, error) {
	if l.m.closed.Load() {
		return nil, 0, false, impl.ErrClosed
	}
	watchdog := lease <= 0
	if watchdog {
		lease = l.watchdogLease
	}
	return l.newMutex(lease), lease, watchdog, nil
}

// giveUp ends an acquire whose last attempt failed with err: an attempt may
// have landed, so it takes back the call's token first.
func (l *redsyncLocker) giveUp(ctx context.Context, mu *redsync.Mutex, err error) error {
	if cerr := l.cleanup(ctx, mu); cerr != nil {
		return fmt.Errorf("redsync %q: %w", l.name, errors.Join(err, cerr))
	}
	switch {
	case ctx.Err() != nil && !redsyncContended(err):
		// The SET may still be on its way: the cleanup above ran on
		// another connection and may have come first.
		return fmt.Errorf("redsync %q: %w", l.name, errors.Join(errInFlight, err, ctx.Err()))
	case ctx.Err() != nil:
		return fmt.Errorf("redsync %q: %w", l.name, errors.Join(impl.ErrNotObtained, ctx.Err()))
	}
	return fmt.Errorf("redsync %q: %w", l.name, err)
}

func (l *redsyncLocker) cleanup(ctx context.Context, mu *redsync.Mutex) error {
	cctx, cancel := cleanupCtx(ctx)
	defer cancel()
	_, err := mu.UnlockContext(cctx)
	if err != nil && (redsyncContended(err) || redsyncGone(err)) {
		return nil // not ours: nothing to take back
	}
	return err
}

func (l *redsyncLocker) granted(mu *redsync.Mutex, lease time.Duration, watchdog bool) {
	l.ren.Stop() // a previous hold's renewal (not reentrant: that hold expired)
	l.mu, l.ren = mu, nil
	if watchdog {
		l.ren = l.m.startRenewer(lease, func(ctx context.Context) (bool, error) {
			ok, err := mu.ExtendContext(ctx)
			if ok {
				return true, nil
			}
			if err == nil || redsyncContended(err) || redsyncExtendFailed(err) {
				return false, nil
			}
			return false, err
		})
	}
}

// Unlock stops the renewal, then releases with redsync's compare-and-delete.
func (l *redsyncLocker) Unlock(ctx context.Context) error {
	if l.m.closed.Load() {
		return impl.ErrClosed
	}
	if l.mu == nil {
		return fmt.Errorf("redsync %q, owner %q: %w", l.name, l.owner, impl.ErrNotOwner)
	}
	l.ren.Stop()
	l.ren = nil
	ok, err := l.mu.UnlockContext(ctx)
	if ok {
		l.mu = nil
		return nil
	}
	if err == nil || redsyncContended(err) || redsyncGone(err) {
		l.mu = nil
		return fmt.Errorf("redsync %q, owner %q: %w", l.name, l.owner, errors.Join(impl.ErrNotOwner, err))
	}
	return fmt.Errorf("redsync %q: unlock: %w", l.name, err)
}

// Abandon stops renewal without unlocking: the hold expires within a lease.
func (l *redsyncLocker) Abandon() {
	l.ren.Stop()
	l.ren, l.mu = nil, nil
}

// Lost is closed when a watchdog-renewed hold could not be extended; nil
// without a watchdog-renewed hold.
func (l *redsyncLocker) Lost() <-chan struct{} { return l.ren.Lost() }

var (
	_ impl.Abandoner    = (*redsyncLocker)(nil)
	_ impl.LeaseWatcher = (*redsyncLocker)(nil)
)
