package impl

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// The simple lock is the single-instance algorithm from the Redis docs
// ("Distributed Locks with Redis"): SET key token NX PX lease to acquire, a
// compare-and-delete script to release. It is the baseline the Redisson-style
// locks are compared against.

var (
	//go:embed simple_lock.lua
	simpleLockSrc string
	//go:embed simple_unlock.lua
	simpleUnlockSrc string

	simpleLockScript   = redis.NewScript(simpleLockSrc)
	simpleUnlockScript = redis.NewScript(simpleUnlockSrc)
)

// Defaults of the simple lock.
const (
	// DefaultSimpleLease is the lease a simple lock takes when Lock or
	// TryLock is given a lease <= 0. The simple lock has no watchdog: a hold
	// always expires one lease after its grant unless unlocked before.
	DefaultSimpleLease = 30 * time.Second
	// DefaultSimpleMinBackoff and DefaultSimpleMaxBackoff bound the pause
	// between two acquire attempts of a waiting simple lock.
	DefaultSimpleMinBackoff = time.Millisecond
	DefaultSimpleMaxBackoff = 50 * time.Millisecond
	// DefaultSimpleCleanupTimeout bounds the compare-and-delete a simple lock
	// sends after an acquire attempt whose outcome it could not read.
	DefaultSimpleCleanupTimeout = time.Second
)

// SimpleOption configures a SimpleLock.
type SimpleOption func(*simpleOptions)

type simpleOptions struct {
	lease      time.Duration
	minBackoff time.Duration
	maxBackoff time.Duration
	cleanup    time.Duration
	seed       uint64
}

func defaultSimpleOptions() simpleOptions {
	return simpleOptions{
		lease:      DefaultSimpleLease,
		minBackoff: DefaultSimpleMinBackoff,
		maxBackoff: DefaultSimpleMaxBackoff,
		cleanup:    DefaultSimpleCleanupTimeout,
	}
}

// WithSimpleLease sets the lease used when a lease <= 0 is asked for.
// Default DefaultSimpleLease (30 s). Values <= 0 are ignored.
func WithSimpleLease(d time.Duration) SimpleOption {
	return func(o *simpleOptions) { setPositive(&o.lease, d) }
}

// WithSimpleBackoff sets the bounds of the polling backoff: a waiter sleeps
// a jittered [d/2, d] between attempts, d doubling from min to max, and never
// longer than the holder's remaining TTL. Defaults 1 ms and 50 ms. Values <= 0
// keep the default; max is raised to min if smaller.
func WithSimpleBackoff(min, max time.Duration) SimpleOption {
	return func(o *simpleOptions) { setBounds(&o.minBackoff, &o.maxBackoff, min, max) }
}

// WithSimpleSeed seeds the backoff jitter. Each handle mixes the seed with
// its lock name and owner, so handles made with one seed still differ and a
// run is reproducible from its seed. Default 0.
func WithSimpleSeed(seed uint64) SimpleOption {
	return func(o *simpleOptions) { o.seed = seed }
}

// WithSimpleCleanupTimeout bounds the compare-and-delete sent after an
// acquire attempt with an unknown outcome. Default 1 s. Values <= 0 are ignored.
func WithSimpleCleanupTimeout(d time.Duration) SimpleOption {
	return func(o *simpleOptions) { setPositive(&o.cleanup, d) }
}

// SimpleLock is one handle on a simple lock: the key <name> holds the token of
// the current grant as a plain string with a PX expiry.
//
// Guarantees and limits:
//   - Acquire is one atomic SET NX PX (in a script that also recognises a
//     retried run of the same attempt, so a retry never strands a hold).
//   - Unlock deletes the key only if it still holds this handle's token, so a
//     holder whose lease ran out cannot delete a new holder's key; it then
//     returns ErrNotOwner.
//   - Not reentrant: a second Lock by the same handle while it holds the lock
//     waits (or TryLock fails) like any other contender, until the first
//     hold's lease runs out. The handle then remembers only the newest hold.
//   - No watchdog: a lease <= 0 means the default lease (DefaultSimpleLease).
//   - Waiting is polling with a jittered, bounded exponential backoff (no
//     pub/sub), capped by the holder's remaining TTL.
//
// A SimpleLock may be used by one goroutine at a time.
type SimpleLock struct {
	pollHandle
	rdb redis.Scripter
	o   simpleOptions
}

var _ Locker = (*SimpleLock)(nil)

// NewSimple returns a handle on the simple lock <name> for owner. owner must
// be unique among the handles on the lock: tokens are owner:<n>.
func NewSimple(rdb redis.Scripter, name, owner string, opts ...SimpleOption) *SimpleLock {
	o := defaultSimpleOptions()
	for _, opt := range opts {
		opt(&o)
	}
	return &SimpleLock{pollHandle: newPollHandle(o.seed, name, owner), rdb: rdb, o: o}
}

// Lock blocks until the lock is granted or ctx ends. lease <= 0 means
// DefaultSimpleLease (or WithSimpleLease); there is no renewal.
func (l *SimpleLock) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, lease, true, time.Time{})
	return err
}

// TryLock tries for at most wait (wait <= 0: one attempt). It returns false
// with a nil error when the wait ran out while another token held the lock.
func (l *SimpleLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if wait <= 0 {
		return l.acquire(ctx, lease, false, time.Time{})
	}
	return l.acquire(ctx, lease, true, time.Now().Add(wait))
}

// Unlock releases the handle's hold with a compare-and-delete. It returns an
// error wrapping ErrNotOwner when the handle holds nothing or its token is no
// longer in Redis (the lease ran out); the key is then left untouched. On any
// other error the outcome is unknown and the handle keeps its token, so
// Unlock may be retried.
func (l *SimpleLock) Unlock(ctx context.Context) error {
	if l.isClosed() {
		return ErrClosed
	}
	if l.token == "" {
		return fmt.Errorf("simple lock %q, owner %q: %w", l.key, l.owner, ErrNotOwner)
	}
	n, err := simpleUnlockScript.Run(ctx, l.rdb, []string{l.key}, l.token).Int64()
	if err != nil {
		return fmt.Errorf("simple lock %q: unlock: %w", l.key, err)
	}
	l.token = ""
	if n != 1 {
		return fmt.Errorf("simple lock %q, owner %q: lease ran out: %w", l.key, l.owner, ErrNotOwner)
	}
	return nil
}

// acquire makes attempts with one token until granted; block says whether
// to wait, and a non-zero deadline bounds the wait (TryLock).
func (l *SimpleLock) acquire(ctx context.Context, lease time.Duration, block bool, deadline time.Time) (bool, error) {
	if l.isClosed() {
		return false, ErrClosed
	}
	if lease <= 0 {
		lease = l.o.lease
	}
	leaseMS := max(lease.Milliseconds(), 1)
	token := l.nextToken()
	backoff := l.o.minBackoff
	pause := func() time.Duration {
		d := backoff/2 + time.Duration(l.rnd.Int64N(int64(backoff/2)+1))
		backoff = min(2*backoff, l.o.maxBackoff)
		return d
	}
	return pollLock(ctx, fmt.Sprintf("simple lock %q", l.key), block, deadline, pause, func() pollAttempt {
		ttl, err := simpleLockScript.Run(ctx, l.rdb, []string{l.key}, token, leaseMS).Int64()
		switch {
		case err != nil:
			return pollAttempt{fatal: l.failed(ctx, token, err)}
		case ttl == 0:
			l.token = token
			return pollAttempt{granted: true}
		}
		return pollAttempt{cap: time.Duration(max(ttl, 0)) * time.Millisecond}
	})
}

// failed is the error of an attempt whose outcome is unknown (err): it
// takes back whatever the attempt may have set.
func (l *SimpleLock) failed(ctx context.Context, token string, err error) error {
	if cerr := l.release(ctx, token); cerr != nil {
		err = errors.Join(err, fmt.Errorf("cleanup: %w", cerr))
	} else if ctx.Err() != nil {
		err = errors.Join(ErrNotObtained, ctx.Err())
	}
	return fmt.Errorf("simple lock %q: %w", l.key, err)
}

// release compare-and-deletes token with a fresh context bounded by the
// cleanup timeout (ctx may have ended).
func (l *SimpleLock) release(ctx context.Context, token string) error {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.o.cleanup)
	defer cancel()
	return simpleUnlockScript.Run(cctx, l.rdb, []string{l.key}, token).Err()
}

// SimpleMaker returns a MakerFunc for simple locks with opts. Its Maker has
// no background goroutines; Close makes every handle it made return
// ErrClosed.
func SimpleMaker(opts ...SimpleOption) MakerFunc {
	return func(_ context.Context, rdb redis.UniversalClient) (Maker, error) {
		if rdb == nil {
			return nil, errors.New("simple lock: nil redis client")
		}
		return &simpleMaker{rdb: rdb, opts: opts}, nil
	}
}

type simpleMaker struct {
	rdb    redis.UniversalClient
	opts   []SimpleOption
	closed atomic.Bool
}

func (m *simpleMaker) NewLocker(name, owner string) Locker {
	l := NewSimple(m.rdb, name, owner, m.opts...)
	l.closed = &m.closed
	return l
}

func (m *simpleMaker) Close() error {
	m.closed.Store(true)
	return nil
}
