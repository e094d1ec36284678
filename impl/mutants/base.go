package mutants

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

var (
	//go:embed acquire.lua
	acquireSrc string
	//go:embed acquire_nocount.lua
	acquireNoCountSrc string
	//go:embed unlock.lua
	unlockSrc string
	//go:embed unlock_del.lua
	unlockDelSrc string
	//go:embed renew.lua
	renewSrc string
	//go:embed renew_any.lua
	renewAnySrc string

	acquireScript        = redis.NewScript(acquireSrc)
	acquireNoCountScript = redis.NewScript(acquireNoCountSrc)
	unlockScript         = redis.NewScript(unlockSrc)
	unlockDelScript      = redis.NewScript(unlockDelSrc)
	renewScript          = redis.NewScript(renewSrc)
	renewAnyScript       = redis.NewScript(renewAnySrc)
)

// flaw is one deliberate bug of the base lock; a mutant has exactly one.
type flaw int

const (
	checkThenSet   flaw = 1 << iota // acquire: EXISTS/HEXISTS, then HINCRBY+PEXPIRE in another round trip
	unlockNoOwner                   // unlock: plain DEL, no owner check
	reentryNoCount                  // acquire: reentry sets the count to 1
	renewAnyone                     // keep-alive on every hold, never stopped by Unlock, renews without owner check
	pubsubOnlyWait                  // waiting: subscribe after the failed attempt, wake only on messages
	errorIsSuccess                  // acquire: any error reads as "acquired"
	wakeupIsGrant                   // waiting: an unlock message is taken as the grant
)

// DefaultWatchdogLease is the mutants' lease for Lock(ctx, 0), renewed every
// third of it (Redisson's lockWatchdogTimeout).
const DefaultWatchdogLease = 30 * time.Second

// config is one mutant's configuration.
type config struct {
	flaws         flaw
	watchdogLease time.Duration
}

func (c config) has(f flaw) bool { return c.flaws&f != 0 }

// open returns the MakerFunc of the base lock with cfg.
func open(cfg config) impl.MakerFunc {
	if cfg.watchdogLease <= 0 {
		cfg.watchdogLease = DefaultWatchdogLease
	}
	return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		if rdb == nil {
			return nil, errors.New("mutants: nil redis client")
		}
		ctx, cancel := context.WithCancel(context.Background())
		return &maker{rdb: rdb, cfg: cfg, ctx: ctx, cancel: cancel}, nil
	}
}

// maker owns the renewal goroutines of its handles.
type maker struct {
	rdb    redis.UniversalClient
	cfg    config
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed atomic.Bool
}

func (m *maker) NewLocker(name, owner string) impl.Locker {
	return &locker{m: m, name: name, field: owner, channel: "redisson_lock__channel:{" + name + "}"}
}

func (m *maker) Close() error {
	m.closed.Store(true)
	m.cancel()
	m.wg.Wait()
	return nil
}

// locker is a Redisson-style reentrant lock handle (hash, Lua, pub/sub
// wake-ups bounded by the holder's TTL, watchdog) with its mutant's flaw.
type locker struct {
	m                    *maker
	name, field, channel string

	holds int           // this handle's hold count as it believes it
	lease time.Duration // lease of the current hold
	ren   *renewer

	hook func(point string) // test hook: "checked", "failed"
}

func (l *locker) at(point string) {
	if l.hook != nil {
		l.hook(point)
	}
}

// tryAcquire makes one attempt. It returns acquired, or the holder's TTL
// (<= 0: unknown), or an error with an unknown outcome.
func (l *locker) tryAcquire(ctx context.Context, lease time.Duration) (bool, time.Duration, error) {
	ok, ttl, err := l.tryAcquireOnce(ctx, lease)
	if err != nil && l.m.cfg.has(errorIsSuccess) {
		return true, 0, nil // BUG: an error (timeout, cancelled ctx, EOF) reads as "acquired"
	}
	return ok, ttl, err
}

func (l *locker) tryAcquireOnce(ctx context.Context, lease time.Duration) (bool, time.Duration, error) {
	rdb, ms := l.m.rdb, lease.Milliseconds()
	if l.m.cfg.has(checkThenSet) {
		// BUG: check and set are separate round trips.
		var exists *redis.IntCmd
		var mine *redis.BoolCmd
		if _, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			exists = p.Exists(ctx, l.name)
			mine = p.HExists(ctx, l.name, l.field)
			return nil
		}); err != nil {
			return false, 0, err
		}
		if exists.Val() == 0 || mine.Val() {
			l.at("checked")
			runtime.Gosched()
			_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.HIncrBy(ctx, l.name, l.field, 1)
				p.PExpire(ctx, l.name, lease)
				return nil
			})
			return err == nil, 0, err
		}
		ttl, err := rdb.PTTL(ctx, l.name).Result()
		return false, ttl, err
	}
	script := acquireScript
	if l.m.cfg.has(reentryNoCount) {
		script = acquireNoCountScript
	}
	n, err := script.Run(ctx, rdb, []string{l.name}, ms, l.field).Int64()
	if err != nil {
		return false, 0, err
	}
	if n == 0 {
		return true, 0, nil
	}
	return false, time.Duration(n) * time.Millisecond, nil
}

func (l *locker) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, ctx, lease, true)
	return err
}

func (l *locker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if wait <= 0 {
		return l.acquire(ctx, ctx, lease, false)
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	return l.acquire(ctx, wctx, lease, true)
}

// acquire waits under wctx (ctx or a child of it). When wctx ends it makes
// one last attempt (with the ended context) before giving up.
func (l *locker) acquire(ctx, wctx context.Context, lease time.Duration, block bool) (bool, error) {
	if l.m.closed.Load() {
		return false, impl.ErrClosed
	}
	watchdog := lease <= 0
	if watchdog {
		lease = l.m.cfg.watchdogLease
	}
	var sub *redis.PubSub
	defer func() {
		if sub != nil {
			_ = sub.Close()
		}
	}()
	subscribe := func() error {
		sub = l.m.rdb.Subscribe(wctx, l.channel)
		_, err := sub.Receive(wctx) // confirmation
		return err
	}
	if block && !l.m.cfg.has(pubsubOnlyWait) {
		// Correct: subscribe before the attempt, so no unlock is missed.
		if err := subscribe(); err != nil {
			return l.giveUp(ctx, wctx, lease, watchdog, err)
		}
	}
	var timer *time.Timer
	for {
		ok, ttl, err := l.tryAcquire(wctx, lease)
		if err != nil {
			return l.giveUp(ctx, wctx, lease, watchdog, err)
		}
		if ok {
			l.granted(lease, watchdog)
			return true, nil
		}
		if !block {
			return false, nil
		}
		l.at("failed")
		var timeout <-chan time.Time
		if l.m.cfg.has(pubsubOnlyWait) {
			// BUG: subscribes only now (a release in between is missed) and
			// then waits for a message alone (an expired holder sends none).
			if sub == nil {
				if err := subscribe(); err != nil {
					return l.giveUp(ctx, wctx, lease, watchdog, err)
				}
			}
		} else {
			if ttl <= 0 {
				ttl = 100 * time.Millisecond
			}
			if timer == nil {
				timer = time.NewTimer(ttl)
				defer timer.Stop()
			} else {
				timer.Reset(ttl)
			}
			timeout = timer.C
		}
		select {
		case <-wctx.Done():
			return l.giveUp(ctx, wctx, lease, watchdog, wctx.Err())
		case <-sub.Channel():
			if l.m.cfg.has(wakeupIsGrant) {
				l.granted(lease, watchdog) // BUG: the wake-up is not a grant
				return true, nil
			}
		case <-timeout:
		}
	}
}

// giveUp makes the last attempt (with the ended context: it can only fail,
// unless a flaw reads its error as success) and reports the outcome.
func (l *locker) giveUp(ctx, wctx context.Context, lease time.Duration, watchdog bool, cause error) (bool, error) {
	if wctx.Err() != nil {
		if ok, _, _ := l.tryAcquire(wctx, lease); ok {
			l.granted(lease, watchdog)
			return true, nil
		}
	}
	switch {
	case ctx.Err() != nil:
		return false, fmt.Errorf("mutant lock %q: %w", l.name, errors.Join(impl.ErrNotObtained, ctx.Err()))
	case wctx.Err() != nil:
		return false, nil
	}
	return false, fmt.Errorf("mutant lock %q: %w", l.name, cause)
}

func (l *locker) granted(lease time.Duration, watchdog bool) {
	l.holds++
	l.lease = lease
	switch {
	case l.m.cfg.has(renewAnyone):
		// BUG: one keep-alive per handle for every hold, never stopped by Unlock.
		if !l.ren.alive() {
			l.ren = l.m.startRenewer(l, lease, renewAnyScript)
		}
	case watchdog && !l.ren.alive():
		l.ren = l.m.startRenewer(l, lease, renewScript)
	}
}

func (l *locker) Unlock(ctx context.Context) error {
	if l.m.closed.Load() {
		return impl.ErrClosed
	}
	script := unlockScript
	if l.m.cfg.has(unlockNoOwner) {
		script = unlockDelScript
	}
	lease := l.lease
	if lease <= 0 {
		lease = l.m.cfg.watchdogLease
	}
	n, err := script.Run(ctx, l.m.rdb, []string{l.name, l.channel}, lease.Milliseconds(), l.field).Int64()
	if err != nil {
		return fmt.Errorf("mutant lock %q: unlock: %w", l.name, err)
	}
	l.holds = max(l.holds-1, 0)
	if n == 1 || n == -1 {
		l.holds = 0
		if !l.m.cfg.has(renewAnyone) {
			l.ren.stop()
			l.ren = nil
		}
	}
	if n == -1 {
		return fmt.Errorf("mutant lock %q, owner %q: %w", l.name, l.field, impl.ErrNotOwner)
	}
	return nil
}

// Abandon stops renewal without unlocking.
func (l *locker) Abandon() {
	l.ren.stop()
	l.ren = nil
	l.holds = 0
}

var _ impl.Abandoner = (*locker)(nil)

// renewer re-arms one handle's lease every lease/3 until stopped, the hold is
// gone (renew script returns 0), or its Maker closes.
type renewer struct {
	once  sync.Once
	stopc chan struct{}
	done  chan struct{}
}

func (m *maker) startRenewer(l *locker, lease time.Duration, script *redis.Script) *renewer {
	r := &renewer{stopc: make(chan struct{}), done: make(chan struct{})}
	every := max(lease/3, time.Millisecond)
	keys, field := []string{l.name}, l.field
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		defer close(r.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-r.stopc:
				return
			case <-m.ctx.Done():
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(m.ctx, every)
			n, err := script.Run(ctx, m.rdb, keys, lease.Milliseconds(), field).Int64()
			cancel()
			if err == nil && n == 0 {
				return // the hold is gone
			}
		}
	}()
	return r
}

// alive reports whether the renewal goroutine still runs; false on nil.
func (r *renewer) alive() bool {
	if r == nil {
		return false
	}
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

func (r *renewer) stop() {
	if r == nil {
		return
	}
	r.once.Do(func() { close(r.stopc) })
	<-r.done
}
