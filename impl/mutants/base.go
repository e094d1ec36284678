package mutants

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"net"
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
	//go:embed unlock_frees_expired.lua
	unlockFreesExpiredSrc string
	//go:embed renew_retakes.lua
	renewRetakesSrc string

	acquireScript            = redis.NewScript(acquireSrc)
	acquireNoCountScript     = redis.NewScript(acquireNoCountSrc)
	unlockScript             = redis.NewScript(unlockSrc)
	unlockDelScript          = redis.NewScript(unlockDelSrc)
	renewScript              = redis.NewScript(renewSrc)
	renewAnyScript           = redis.NewScript(renewAnySrc)
	unlockFreesExpiredScript = redis.NewScript(unlockFreesExpiredSrc)
	renewRetakesScript       = redis.NewScript(renewRetakesSrc)

	allScripts = []*redis.Script{acquireScript, acquireNoCountScript, unlockScript, unlockDelScript,
		renewScript, renewAnyScript, unlockFreesExpiredScript, renewRetakesScript}
)

// flaw is one deliberate bug of the base lock; a mutant has exactly one.
type flaw int

const (
	checkThenSet            flaw = 1 << iota // acquire: EXISTS/HEXISTS, then HINCRBY+PEXPIRE in another round trip
	unlockNoOwner                            // unlock: plain DEL, no owner check
	reentryNoCount                           // acquire: reentry sets the count to 1
	renewAnyone                              // keep-alive on every hold, never stopped by Unlock, renews without owner check
	pubsubOnlyWait                           // waiting: subscribe after the failed attempt, wake only on messages
	errorIsSuccess                           // acquire: any error reads as "acquired"
	wakeupIsGrant                            // waiting: an unlock message is taken as the grant
	watchdogLate                             // keep-alive: renews every lease + lease/10 instead of lease/3
	unlockFreesExpired                       // unlock: a caller whose field is gone deletes the key anyway
	cancelOrphan                             // acquire: an abandoned acquire goes on in the background and keeps its hold renewed
	renewGivesUp                             // keep-alive: stops for good after one failed renewal
	renewRetakes                             // keep-alive: renews like SET XX, overwriting whatever hash is there with its field
	unlockFailKeepsRenewal                   // unlock: one that gets no answer leaves the keep-alive running, out of reach
	lateUnlockLeavesRenewal                  // unlock: a late (not-owner) unlock leaves the renewal entry, taken later for a running renewal
	timeoutIsGrant                           // acquire: a reply that timed out reads as "acquired"
	renewOutlivesUnlock                      // keep-alive: goes on whatever its renewal answers, and Unlock does not stop it
)

// DefaultWatchdogLease is the mutants' lease for Lock(ctx, 0), renewed every
// third of it (Redisson's lockWatchdogTimeout).
const DefaultWatchdogLease = 30 * time.Second

// orphanBound bounds how long an abandoned acquire of the cancelOrphan
// mutant goes on in the background.
const orphanBound = 2 * time.Second

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
	return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
		if rdb == nil {
			return nil, errors.New("mutants: nil redis client")
		}
		loadScripts(ctx, rdb)
		ctx, cancel := context.WithCancel(context.Background())
		return &maker{rdb: rdb, cfg: cfg, ctx: ctx, cancel: cancel, renewals: impl.NewRenewals(cfg.watchdogLease),
			id: fmt.Sprintf("%08x", makers.Add(1))}, nil
	}
}

// loadScripts loads every script into Redis's script cache, so that a
// script's first run is one round trip (EVALSHA) and not two (EVALSHA
// answered NOSCRIPT, then EVAL): a renewal due when its paused client
// resumes then reaches Redis before the client's next command, as a
// one-command renewal (SET key token XX PX) would. A failed load is left
// to Script.Run's NOSCRIPT fallback.
func loadScripts(ctx context.Context, rdb redis.UniversalClient) {
	for _, s := range allScripts {
		if s.Load(ctx, rdb).Err() != nil {
			return
		}
	}
}

// makers numbers the makers of this process: each one's id (maker.id).
var makers atomic.Uint64

// maker owns every goroutine of its handles (renewals, and the abandoned
// acquires of the cancelOrphan mutant); Close stops them and waits for them.
type maker struct {
	rdb      redis.UniversalClient
	cfg      config
	id       string          // prefixes its owners' fields, as Redisson's client UUID does
	renewals *impl.Renewals  // the keep-alives of every handle
	ctx      context.Context // ends at Close
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	mu       sync.Mutex // orders spawn against Close
	closed   atomic.Bool
}

func (m *maker) NewLocker(name, owner string) impl.Locker {
	return &locker{m: m, name: name, field: m.id + ":" + owner, channel: "redisson_lock__channel:{" + name + "}"}
}

func (m *maker) Close() error {
	m.mu.Lock()
	m.closed.Store(true)
	m.mu.Unlock()
	m.cancel()
	m.renewals.Close()
	m.wg.Wait()
	return nil
}

// spawn runs f in a goroutine that Close waits for; f must return soon
// after m.ctx ends. It runs nothing and returns false once Close began.
func (m *maker) spawn(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return false
	}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
	return true
}

// locker is a Redisson-style reentrant lock handle (hash, Lua, pub/sub
// wake-ups bounded by the holder's TTL, watchdog) with its mutant's flaw.
type locker struct {
	m                    *maker
	name, field, channel string

	holds int           // this handle's hold count as it believes it
	lease time.Duration // lease of the current hold
	ren   *renewal

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
	switch {
	case err == nil:
	case l.m.cfg.has(errorIsSuccess):
		return true, 0, nil // BUG: an error (timeout, cancelled ctx, EOF) reads as "acquired"
	case l.m.cfg.has(timeoutIsGrant) && replyTimedOut(err):
		// BUG: the request went out and its reply did not come in time: the
		// lock "probably" took it. Nothing says so; another owner may hold.
		return true, 0, nil
	}
	return ok, ttl, err
}

// replyTimedOut reports whether err is the timeout of a read: the request
// was written and its reply did not come before the read deadline (the
// go-redis ReadTimeout, or a ctx deadline that reached the socket). A
// context that had ended before anything was sent, or a write that could
// not go out, is not one.
func replyTimedOut(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "read" && op.Timeout()
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

// acquire makes attempts under ctx and waits between them under wctx (ctx
// or a child of it, ended by the wait). When the wait or ctx ends it makes
// one last attempt (with the ended context) before giving up.
func (l *locker) acquire(ctx, wctx context.Context, lease time.Duration, block bool) (bool, error) {
	if l.m.closed.Load() {
		return false, impl.ErrClosed
	}
	watchdog := lease <= 0
	if watchdog {
		lease = l.m.cfg.watchdogLease
	}
	ok, err := l.attempt(ctx, wctx, lease, block)
	switch {
	case ok:
		l.granted(lease, watchdog)
		return true, nil
	case err == nil:
		return false, nil // not blocking, and held by another owner
	}
	return l.giveUp(ctx, wctx, lease, watchdog, block, err)
}

// errWaitEnded is attempt's answer when the wait ran out after Redis said
// the lock is held.
var errWaitEnded = errors.New("mutants: the wait ran out")

// attempt tries to acquire under ctx and, when block is set, waits between
// attempts under wctx for an unlock message or the holder's TTL. An attempt
// is never cut short by the wait: the first is made whatever the wait (as
// Redisson does), and a script in flight ends with its answer. It touches
// no state of the handle. It returns true when granted; false and nil when
// not blocking and the lock is held; false and errWaitEnded when the wait
// ran out (while subscribing or waiting); false and the cause when an
// attempt failed (outcome unknown) or the subscription did.
func (l *locker) attempt(ctx, wctx context.Context, lease time.Duration, block bool) (bool, error) {
	w := waiting{l: l, wctx: wctx}
	defer w.close()
	for {
		ok, ttl, err := l.tryAcquire(ctx, lease)
		if ok || err != nil || !block {
			return ok, err
		}
		l.at("failed")
		if w.sub == nil {
			if err := w.subscribe(); err != nil {
				return false, err
			}
			if !l.m.cfg.has(pubsubOnlyWait) {
				// Correct: attempt again now that no unlock message can be
				// missed. (BUG, pubsubOnlyWait: waits at once, below, for
				// a message alone: a release since the failed attempt is
				// missed, and an expired holder sends none.)
				continue
			}
		}
		woken, err := w.wait(ttl)
		if err != nil {
			return false, err
		}
		if woken && l.m.cfg.has(wakeupIsGrant) {
			return true, nil // BUG: the wake-up is not a grant
		}
	}
}

// waiting is one attempt's subscription and timer, bounded by the wait.
type waiting struct {
	l     *locker
	wctx  context.Context
	sub   *redis.PubSub
	timer *time.Timer
}

func (w *waiting) close() {
	if w.sub != nil {
		_ = w.sub.Close()
	}
	if w.timer != nil {
		w.timer.Stop()
	}
}

// subscribe subscribes to the lock's channel and waits for the
// confirmation; a failure once the wait's deadline has passed is the
// wait's end (a dial can see the deadline before wctx says so).
func (w *waiting) subscribe() error {
	w.sub = w.l.m.rdb.Subscribe(w.wctx, w.l.channel)
	if _, err := w.sub.Receive(w.wctx); err != nil {
		if waitOver(w.wctx) {
			return errWaitEnded
		}
		return err
	}
	return nil
}

// wait waits for an unlock message or the holder's TTL (ttl <= 0: 100 ms;
// pubsubOnlyWait: a message alone). It reports whether a message came.
func (w *waiting) wait(ttl time.Duration) (bool, error) {
	var timeout <-chan time.Time
	if !w.l.m.cfg.has(pubsubOnlyWait) {
		if ttl <= 0 {
			ttl = 100 * time.Millisecond
		}
		if w.timer == nil {
			w.timer = time.NewTimer(ttl)
		} else {
			w.timer.Reset(ttl)
		}
		timeout = w.timer.C
	}
	select {
	case <-w.wctx.Done():
		return false, errWaitEnded
	case <-w.sub.Channel():
		return true, nil
	case <-timeout:
		return false, nil
	}
}

// waitOver reports whether wctx has ended or its deadline has passed.
func waitOver(wctx context.Context) bool {
	d, ok := wctx.Deadline()
	return wctx.Err() != nil || ok && !time.Now().Before(d)
}

// giveUp ends an acquire that did not get the lock. When the wait or ctx
// ended it makes the last attempt (with the ended context: it can only
// fail, unless a flaw reads its error as success, or goes on without the
// caller). A wait that ran out is not obtained; ctx's end or a failed
// attempt is an unknown outcome.
func (l *locker) giveUp(ctx, wctx context.Context, lease time.Duration, watchdog, block bool, cause error) (bool, error) {
	ended := waitOver(ctx) // a deadline can fail an attempt before ctx says so
	if errors.Is(cause, errWaitEnded) || ended {
		if l.m.cfg.has(cancelOrphan) {
			l.orphan(ctx, lease, block) // BUG: the attempt goes on without the caller
		} else if ok, _, _ := l.tryAcquire(wctx, lease); ok {
			l.granted(lease, watchdog)
			return true, nil
		}
	}
	switch {
	case ended:
		return false, fmt.Errorf("mutant lock %q: %w", l.name, errors.Join(impl.ErrNotObtained, context.Cause(ctx), cause))
	case errors.Is(cause, errWaitEnded):
		return false, nil
	}
	return false, fmt.Errorf("mutant lock %q: %w", l.name, cause)
}

// orphan is the cancelOrphan flaw: the acquire its caller gave up goes on in
// the background, on a context that is not the caller's, for up to
// orphanBound (or until the Maker closes). A grant there is recorded
// nowhere in the handle (its caller was told it failed) yet starts a
// keep-alive with the watchdog lease that only the hold's end or Close
// stops: nobody owns the hold, and it never runs out.
func (l *locker) orphan(ctx context.Context, lease time.Duration, block bool) {
	m := l.m
	m.spawn(func() {
		bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orphanBound)
		defer cancel()
		defer context.AfterFunc(m.ctx, cancel)()
		if ok, _ := l.attempt(bctx, bctx, lease, block); ok {
			m.startRenewer(l, m.cfg.watchdogLease, renewScript)
		}
	})
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
	case !watchdog:
	case l.m.cfg.has(lateUnlockLeavesRenewal) && l.ren != nil:
		// BUG: an entry is taken for a running renewal (Redisson's
		// putIfAbsent on its renewal map); one a late unlock left behind
		// renews nothing, and this hold runs out while its holder works.
	case !l.ren.alive():
		l.ren = l.m.startRenewer(l, lease, l.m.cfg.keepAliveScript())
	}
}

// keepAliveScript is the renewal script of a watchdog hold.
func (c config) keepAliveScript() *redis.Script {
	if c.has(renewRetakes) {
		return renewRetakesScript // BUG: renews whoever holds the key
	}
	return renewScript
}

func (l *locker) Unlock(ctx context.Context) error {
	if l.m.closed.Load() {
		return impl.ErrClosed
	}
	ren := l.ren
	switch {
	case l.m.cfg.has(unlockFailKeepsRenewal):
		// BUG: the release takes the keep-alive over from the handle and
		// stops it only once Redis answers: an unlock that gets no answer
		// (dropped connection, timeout) leaves it renewing, out of the
		// handle's reach, a hold nobody will release (Redisson 3.8.0:
		// cancelExpirationRenewal only on success).
		l.ren = nil
	case l.holds <= 1 && !l.m.cfg.has(renewAnyone|renewOutlivesUnlock):
		// The last hold's keep-alive stops before the release, whatever
		// its answer (Redisson's unlock cancels the renewal on any outcome):
		// an unlock that gets no answer leaves a hold that runs out.
		l.ren.stop()
	}
	lease := l.lease
	if lease <= 0 {
		lease = l.m.cfg.watchdogLease
	}
	n, err := l.m.cfg.unlockScript().Run(ctx, l.m.rdb, []string{l.name, l.channel}, lease.Milliseconds(), l.field).Int64()
	if err != nil {
		return fmt.Errorf("mutant lock %q: unlock: %w", l.name, err)
	}
	l.ren = ren
	l.holds = max(l.holds-1, 0)
	if n == 1 || n == -1 {
		l.holds = 0
		l.endRenewal(n)
	}
	if n == -1 {
		return fmt.Errorf("mutant lock %q, owner %q: %w", l.name, l.field, impl.ErrNotOwner)
	}
	return nil
}

// unlockScript is the release script.
func (c config) unlockScript() *redis.Script {
	switch {
	case c.has(unlockNoOwner):
		return unlockDelScript
	case c.has(unlockFreesExpired):
		return unlockFreesExpiredScript // BUG: frees the lock for a caller whose lease ran out
	}
	return unlockScript
}

// endRenewal ends the keep-alive of a hold the unlock script said is gone:
// n is its answer, 1 (freed) or -1 (not held: the lease ran out first).
func (l *locker) endRenewal(n int64) {
	switch {
	case l.m.cfg.has(renewAnyone | renewOutlivesUnlock):
		// BUG (renewAnyone, renewOutlivesUnlock): the keep-alive outlives Unlock.
	case n == -1 && l.m.cfg.has(lateUnlockLeavesRenewal):
		// BUG: only a successful release removes the renewal entry; a late
		// one leaves it (its keep-alive ended when it found the hold gone).
	default:
		l.ren.stop()
		l.ren = nil
	}
}

// startRenewer re-arms l's lease every lease/3 with script until stopped,
// the hold is gone (the script returns 0), or the Maker closes. Each
// renewal waits at most one renewal period for its reply; a failed
// renewal (an error: no reply in time, a dropped connection, a refused
// dial) is retried at the next tick. Flaws: watchdogLate renews every lease
// + lease/10, renewGivesUp ends at the first failed renewal,
// renewOutlivesUnlock goes on when the script returns 0. It returns
// a renewal that ended once the Maker closed.
func (m *maker) startRenewer(l *locker, lease time.Duration, script *redis.Script) *renewal {
	every := max(lease/3, time.Millisecond)
	if m.cfg.has(watchdogLate) {
		every = lease + lease/10 // BUG: the lease runs out before each renewal
	}
	c := impl.RenewalConfig{Lease: lease, Period: every, Retry: every, Wait: every,
		GiveUp: m.cfg.has(renewGivesUp)} // BUG (renewGivesUp): one failed renewal ends the keep-alive of a live hold
	r, _ := m.renewals.Start(time.Now(), c, func(ctx context.Context) (bool, error) {
		n, err := script.Run(ctx, m.rdb, []string{l.name}, lease.Milliseconds(), l.field).Int64()
		// BUG (renewOutlivesUnlock): "not held" reschedules the renewal as
		// "renewed" does (Redisson 3.10.5 and 3.10.6).
		return n != 0 || m.cfg.has(renewOutlivesUnlock), err
	})
	return &renewal{r: r}
}

// renewal is one handle's keep-alive (nil: none).
type renewal struct{ r *impl.Renewal }

// alive reports whether the keep-alive still renews; false on nil.
func (r *renewal) alive() bool { return r != nil && r.r.Alive() }

// stop ends the keep-alive and waits for a renewal in flight; safe on nil.
func (r *renewal) stop() {
	if r != nil {
		r.r.Stop()
	}
}
