package impl

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedLock is the multi-node algorithm from the Redis docs ("Distributed
// Locks with Redis", The Redlock Algorithm): the same key is SET NX PX on N
// independent nodes (no replication between them); the lock is held when a
// majority granted it and time remained.

var (
	//go:embed redlock_acquire.lua
	redlockAcquireSrc string
	//go:embed redlock_release.lua
	redlockReleaseSrc string

	redlockAcquireScript = redis.NewScript(redlockAcquireSrc)
	redlockReleaseScript = redis.NewScript(redlockReleaseSrc)
)

// ErrNoQuorum is returned (wrapped, with the nodes' errors) when an acquire
// could not reach a majority of the nodes: too many were down, slow or
// unreachable to tell whether the lock is free. The attempt's keys were
// released on every node that answered.
var ErrNoQuorum = errors.New("redlock: no quorum of nodes answered")

// Defaults of the RedLock.
const (
	// DefaultRedlockLease is the lease taken when Lock or TryLock is given a
	// lease <= 0. The RedLock has no watchdog: a hold always expires one
	// lease after its grant unless unlocked before.
	DefaultRedlockLease = 30 * time.Second
	// DefaultRedlockNodeTimeout bounds each node's acquire request, so that
	// a dead node costs one attempt little of the lease (the Redis docs
	// suggest 5–50 ms for a 10 s lease; a busy 2-core test box needs more).
	DefaultRedlockNodeTimeout = 100 * time.Millisecond
	// DefaultRedlockMinRetryDelay and DefaultRedlockMaxRetryDelay bound the
	// random pause between two attempts of a waiting RedLock, which keeps
	// contenders from splitting the votes again and again.
	DefaultRedlockMinRetryDelay = 10 * time.Millisecond
	DefaultRedlockMaxRetryDelay = 60 * time.Millisecond
	// DefaultRedlockCleanupTimeout bounds the release sent to every node
	// after a failed attempt (ctx may have ended by then).
	DefaultRedlockCleanupTimeout = 500 * time.Millisecond
)

// redlockDrift is the clock drift allowance: validity = lease − elapsed −
// (lease/100 + 2 ms), as in the Redis docs' reference implementation.
func redlockDrift(lease time.Duration) time.Duration {
	return lease/100 + 2*time.Millisecond
}

// RedlockOption configures a Redlock.
type RedlockOption func(*redlockOptions)

type redlockOptions struct {
	lease       time.Duration
	nodeTimeout time.Duration
	minDelay    time.Duration
	maxDelay    time.Duration
	cleanup     time.Duration
	seed        uint64
	clock       Clock // WithRedlockClock (clock.go)
}

func defaultRedlockOptions() redlockOptions {
	return redlockOptions{
		lease:       DefaultRedlockLease,
		nodeTimeout: DefaultRedlockNodeTimeout,
		minDelay:    DefaultRedlockMinRetryDelay,
		maxDelay:    DefaultRedlockMaxRetryDelay,
		cleanup:     DefaultRedlockCleanupTimeout,
		clock:       RealClock,
	}
}

// WithRedlockLease sets the lease used when a lease <= 0 is asked for.
// Default DefaultRedlockLease (30 s). Values <= 0 are ignored.
func WithRedlockLease(d time.Duration) RedlockOption {
	return func(o *redlockOptions) { setPositive(&o.lease, d) }
}

// WithRedlockNodeTimeout bounds each node's acquire request. Default
// DefaultRedlockNodeTimeout (100 ms). Values <= 0 are ignored.
func WithRedlockNodeTimeout(d time.Duration) RedlockOption {
	return func(o *redlockOptions) { setPositive(&o.nodeTimeout, d) }
}

// WithRedlockRetryDelay sets the bounds of the uniform random pause between
// two attempts. Defaults 10 ms and 60 ms. Values <= 0 keep the default; max
// is raised to min if smaller.
func WithRedlockRetryDelay(min, max time.Duration) RedlockOption {
	return func(o *redlockOptions) { setBounds(&o.minDelay, &o.maxDelay, min, max) }
}

// WithRedlockSeed seeds the retry delays. Each handle mixes the seed with its
// lock name and owner, so handles made with one seed still differ and a run
// is reproducible from its seed. Default 0.
func WithRedlockSeed(seed uint64) RedlockOption {
	return func(o *redlockOptions) { o.seed = seed }
}

// WithRedlockCleanupTimeout bounds the releases sent after a failed attempt.
// Default 500 ms. Values <= 0 are ignored.
func WithRedlockCleanupTimeout(d time.Duration) RedlockOption {
	return func(o *redlockOptions) { setPositive(&o.cleanup, d) }
}

// Redlock is one handle on a RedLock over N independent Redis nodes: on each
// node the key <name> holds the token of the current grant as a plain string
// with a PX expiry.
//
// Guarantees and limits:
//   - An attempt sends SET NX PX to every node in parallel, each bounded by
//     the node timeout, and succeeds when at least N/2+1 nodes granted it
//     and the validity lease − elapsed − (lease/100 + 2 ms) is still
//     positive. Elapsed is measured from before the first request. A failed
//     attempt releases its token on every node.
//   - Unlock compare-and-deletes the token on every node.
//   - Mutual exclusion holds only as long as the nodes keep their keys:
//     a node restarted without persistence forgets the locks it granted,
//     and a second client can then form a majority (Kleppmann's
//     counterexample; faults.RestartEmpty). It is also a lease: a holder
//     that outlives its validity is not a holder any more. The RedLock gives
//     no fencing token.
//   - Not reentrant and no watchdog: a lease <= 0 means the default lease
//     (DefaultRedlockLease). A second Lock by the same handle waits like any
//     other contender.
//   - One node down (of 3) costs nothing but that node's timeout; a majority
//     down makes every attempt fail with ErrNoQuorum.
//
// A Redlock may be used by one goroutine at a time.
type Redlock struct {
	pollHandle
	nodes      []redis.Scripter
	o          redlockOptions
	validUntil time.Time // end of the current hold's validity
}

var _ Locker = (*Redlock)(nil)

// NewRedlock returns a handle on the RedLock <name> over nodes for owner.
// owner must be unique among the handles on the lock: tokens are owner:<n>.
// The clients should have ctx deadlines enabled (ContextTimeoutEnabled)
// and MaxRetries -1; the handle bounds each request with a ctx deadline.
func NewRedlock(nodes []redis.Scripter, name, owner string, opts ...RedlockOption) *Redlock {
	o := defaultRedlockOptions()
	for _, opt := range opts {
		opt(&o)
	}
	return &Redlock{pollHandle: newPollHandle(o.seed, name, owner), nodes: nodes, o: o}
}

// Quorum is the number of nodes that must grant an attempt: N/2+1.
func (l *Redlock) Quorum() int { return len(l.nodes)/2 + 1 }

// ValidUntil is the end of the current hold's validity (the zero time when
// the handle holds nothing). Past it, the hold may have expired on enough
// nodes for another owner to get the lock.
func (l *Redlock) ValidUntil() time.Time { return l.validUntil }

// Lock blocks until the lock is granted or ctx ends; then the error wraps
// ErrNotObtained, ctx.Err() and, if the last attempt found no quorum,
// ErrNoQuorum. lease <= 0 means DefaultRedlockLease (or WithRedlockLease).
func (l *Redlock) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, lease, true, time.Time{})
	return err
}

// TryLock makes attempts for at most wait (wait <= 0: one attempt). It
// returns false with a nil error when the last attempt failed because other
// owners held the lock (or the attempt ran out of validity); false with an
// error wrapping ErrNoQuorum when too many nodes failed to answer.
func (l *Redlock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if wait <= 0 {
		return l.acquire(ctx, lease, false, time.Time{})
	}
	return l.acquire(ctx, lease, true, time.Now().Add(wait))
}

func (l *Redlock) acquire(ctx context.Context, lease time.Duration, block bool, deadline time.Time) (bool, error) {
	if l.isClosed() {
		return false, ErrClosed
	}
	if len(l.nodes) == 0 {
		return false, fmt.Errorf("redlock %q: no nodes", l.key)
	}
	if lease <= 0 {
		lease = l.o.lease
	}
	pause := func() time.Duration {
		return l.o.minDelay + time.Duration(l.rnd.Int64N(int64(l.o.maxDelay-l.o.minDelay)+1))
	}
	return pollLock(ctx, fmt.Sprintf("redlock %q", l.key), block, deadline, pause, func() pollAttempt {
		ok, err := l.attempt(ctx, lease)
		return pollAttempt{granted: ok, refusal: err}
	})
}

// attempt makes one acquire attempt with a fresh token. It returns true when
// a quorum granted it within its validity; otherwise it releases the token
// everywhere and returns false with a nil error (others hold the lock, or
// the validity ran out) or an error wrapping ErrNoQuorum.
func (l *Redlock) attempt(ctx context.Context, lease time.Duration) (bool, error) {
	token := l.nextToken()
	leaseMS := max(lease.Milliseconds(), 1)
	start := l.o.clock.Now()
	granted, errs := l.onAll(ctx, l.o.nodeTimeout, func(ctx context.Context, n redis.Scripter) (bool, error) {
		v, err := redlockAcquireScript.Run(ctx, n, []string{l.key}, token, leaseMS).Int64()
		return v == 1, err
	})
	validity := lease - l.o.clock.Now().Sub(start) - redlockDrift(lease)
	if granted >= l.Quorum() && validity > 0 {
		l.token, l.validUntil = token, start.Add(validity)
		return true, nil
	}
	// Take back whatever the attempt may have set, on every node (a node
	// that timed out may have applied it).
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), l.o.cleanup)
	defer cancel()
	_, cerrs := l.release(cctx, token, l.o.cleanup)
	if len(l.nodes)-len(errs) < l.Quorum() {
		return false, fmt.Errorf("redlock %q: %d of %d nodes answered, %d needed: %w",
			l.key, len(l.nodes)-len(errs), len(l.nodes), l.Quorum(),
			errors.Join(append([]error{ErrNoQuorum}, append(errs, cerrs...)...)...))
	}
	return false, nil
}

// Unlock releases the handle's hold on every node, each request bounded by
// the node timeout. It returns nil when a
// quorum of nodes still held this handle's token; an error wrapping
// ErrNotOwner when the handle holds nothing or every node that answered no
// longer had the token (its lease ran out); and another error when too few
// nodes answered to tell, in which case the handle keeps its token so that
// Unlock may be retried.
func (l *Redlock) Unlock(ctx context.Context) error {
	if l.isClosed() {
		return ErrClosed
	}
	if l.token == "" {
		return fmt.Errorf("redlock %q, owner %q: %w", l.key, l.owner, ErrNotOwner)
	}
	deleted, errs := l.release(ctx, l.token, l.o.nodeTimeout)
	switch {
	case deleted >= l.Quorum():
		l.token, l.validUntil = "", time.Time{}
		return nil
	case deleted+len(errs) >= l.Quorum():
		return fmt.Errorf("redlock %q: unlock: %d of %d nodes deleted the token, %d failed: %w",
			l.key, deleted, len(l.nodes), len(errs), errors.Join(errs...))
	default:
		l.token, l.validUntil = "", time.Time{}
		return fmt.Errorf("redlock %q, owner %q: lease ran out on %d of %d nodes: %w",
			l.key, l.owner, len(l.nodes)-deleted-len(errs), len(l.nodes), ErrNotOwner)
	}
}

// release compare-and-deletes token on every node, each request bounded by
// timeout, and returns how many deleted it.
func (l *Redlock) release(ctx context.Context, token string, timeout time.Duration) (int, []error) {
	return l.onAll(ctx, timeout, func(ctx context.Context, n redis.Scripter) (bool, error) {
		v, err := redlockReleaseScript.Run(ctx, n, []string{l.key}, token).Int64()
		return v == 1, err
	})
}

// onAll runs fn on every node in parallel, each call bounded by timeout, and
// returns how many returned true and the errors (each naming its node).
func (l *Redlock) onAll(ctx context.Context, timeout time.Duration, fn func(context.Context, redis.Scripter) (bool, error)) (int, []error) {
	type result struct {
		ok  bool
		err error
	}
	results := make([]result, len(l.nodes))
	var wg sync.WaitGroup
	for i, n := range l.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			ok, err := fn(cctx, n)
			if err != nil {
				err = fmt.Errorf("node %d: %w", i, err)
			}
			results[i] = result{ok, err}
		}()
	}
	wg.Wait()
	var count int
	var errs []error
	for _, r := range results {
		switch {
		case r.err != nil:
			errs = append(errs, r.err)
		case r.ok:
			count++
		}
	}
	return count, errs
}

// RedlockMaker returns a MakerFunc for RedLocks over the given node clients.
//
// The harness's MakerFunc receives a single rdb; a RedLock needs N
// independent nodes, so this MakerFunc ignores that rdb and uses nodes
// instead: register it as a subject with the node clients closed over. The
// Maker does not own nodes (Close leaves them open). Its handles have no
// background goroutines; Close makes every handle return ErrClosed.
func RedlockMaker(nodes []redis.UniversalClient, opts ...RedlockOption) MakerFunc {
	return func(context.Context, redis.UniversalClient) (Maker, error) {
		if len(nodes) == 0 {
			return nil, errors.New("redlock: no nodes")
		}
		sc := make([]redis.Scripter, len(nodes))
		for i, n := range nodes {
			if n == nil {
				return nil, fmt.Errorf("redlock: node %d: nil client", i)
			}
			sc[i] = n
		}
		return &redlockMaker{nodes: sc, opts: opts}, nil
	}
}

// RedlockAddrMaker returns a MakerFunc for RedLocks over the Redis nodes at
// addrs (host:port). Like RedlockMaker it ignores the rdb the harness passes.
// Each Maker it opens dials its own client per node (MaxRetries -1,
// DialerRetries 1 so that a dead node fails at once instead of using up the
// node timeout, ContextTimeoutEnabled, 1 s dial/read/write timeouts) and its
// Close closes them.
func RedlockAddrMaker(addrs []string, opts ...RedlockOption) MakerFunc {
	return func(context.Context, redis.UniversalClient) (Maker, error) {
		if len(addrs) == 0 {
			return nil, errors.New("redlock: no node addresses")
		}
		m := &redlockMaker{opts: opts}
		for _, a := range addrs {
			c := redis.NewClient(&redis.Options{
				Addr: a, MaxRetries: -1, DialerRetries: 1, ContextTimeoutEnabled: true,
				DialTimeout: time.Second, ReadTimeout: time.Second, WriteTimeout: time.Second,
			})
			m.owned = append(m.owned, c)
			m.nodes = append(m.nodes, c)
		}
		return m, nil
	}
}

type redlockMaker struct {
	nodes  []redis.Scripter
	owned  []*redis.Client
	opts   []RedlockOption
	closed atomic.Bool
}

func (m *redlockMaker) NewLocker(name, owner string) Locker {
	l := NewRedlock(m.nodes, name, owner, m.opts...)
	l.closed = &m.closed
	return l
}

func (m *redlockMaker) Close() error {
	if m.closed.Swap(true) {
		return nil
	}
	var errs []error
	for _, c := range m.owned {
		if err := c.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
