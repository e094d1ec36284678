package bench

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

//go:embed noop.lua
var noopLua string

var noopScript = redis.NewScript(noopLua)

// errorCount counts a window's errors and keeps the first.
type errorCount struct {
	mu    sync.Mutex
	n     int64
	first error
}

func (e *errorCount) add(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.n++
	if e.first == nil {
		e.first = err
	}
}

// fleet is one window's workers: each its own go-redis client, Maker and
// lock handle. close releases all of them and waits for their goroutines.
type fleet struct {
	rdbs    []*redis.Client
	makers  []impl.Maker
	lockers []impl.Locker
}

// openFleet opens n workers of subj, worker i on a client dial gives it,
// locking name(i). Each worker runs one warm-up cycle on a private lock
// first, so connections and scripts are ready before the window opens.
func openFleet(ctx context.Context, dial *dialer, subj subject.Subject, n int, name func(i int) string, lease time.Duration) (_ *fleet, err error) {
	f := &fleet{}
	defer func() {
		if err != nil {
			f.close()
		}
	}()
	for i := range n {
		o, err := dial.options(i)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", subj.Name, err)
		}
		rdb := redis.NewClient(o)
		f.rdbs = append(f.rdbs, rdb)
		m, err := maker(subj)(ctx, rdb)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", subj.Name, err)
		}
		f.makers = append(f.makers, m)
		f.lockers = append(f.lockers, m.NewLocker(name(i), fmt.Sprintf("w%d", i)))
	}
	for _, m := range f.makers { // clients started ahead of use (driver processes)
		if r, ok := m.(impl.Readier); ok {
			if err := r.Ready(ctx); err != nil {
				return nil, fmt.Errorf("start %s: %w", subj.Name, err)
			}
		}
	}
	if err := warmUp(ctx, subj.Name, n, func(i int) impl.Maker { return f.makers[i] }, name, lease); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *fleet) close() {
	for _, m := range f.makers {
		_ = m.Close()
	}
	for _, r := range f.rdbs {
		_ = r.Close()
	}
}

// window runs work(i, start, ctx) on n goroutines, all released at once, with
// ctx ending d after the release; it returns when all have returned.
func window(ctx context.Context, n int, d time.Duration, work func(i int, start time.Time, ctx context.Context)) {
	start := time.Now()
	wctx, cancel := context.WithDeadline(ctx, start.Add(d))
	defer cancel()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { work(i, start, wctx) })
	}
	wg.Wait()
}

// windowEndSlack is how early before the window's end a failed Lock still
// counts as ended by the window: a driver process rounds its deadline
// (timeout_ms) down and may answer just before ctx's own timer fires.
const windowEndSlack = 2 * time.Millisecond

// windowOver reports whether the window of wctx has ended (or is within
// windowEndSlack of its end), or err says a lock gave up at the window's
// deadline (the only deadline its ctx carries: a driver that waits in steps
// gives up up to one step early), so a Lock that failed then is no error.
func windowOver(wctx context.Context, err error) bool {
	if wctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	dl, ok := wctx.Deadline()
	return ok && time.Until(dl) < windowEndSlack
}

// windowResult is one subject's (or the ceiling's) result in one window.
type windowResult struct {
	ops        int64 // cycles (or script calls) completed inside the window
	errs       errorCount
	server     *ServerCost // the server's own cost of the window; nil when not measured
	contention *contention // contended windows only
}

// unlock releases with its own bounded context: the window may have ended.
func unlock(ctx context.Context, l impl.Locker) error {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
	defer cancel()
	return l.Unlock(uctx)
}

// pauseAfterError keeps a worker whose calls fail from spinning.
func pauseAfterError(ctx context.Context) {
	t := time.NewTimer(time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// opener opens a window's n workers on clients dial gives them: openFleet
// (a client process each) or openShared (threads of one client process).
type opener func(ctx context.Context, dial *dialer, subj subject.Subject, n int, name func(i int) string, lease time.Duration) (*fleet, error)

// runUncontended measures n workers each cycling its own lock.
func runUncontended(ctx context.Context, open opener, meter *serverMeter, dial *dialer, subj subject.Subject, n int, d, lease time.Duration, prefix string) (*windowResult, error) {
	f, err := open(ctx, dial, subj, n, func(i int) string { return fmt.Sprintf("%s:w%d", prefix, i) }, lease)
	if err != nil {
		return nil, err
	}
	defer f.close()
	res := &windowResult{}
	counts := make([]int64, n)
	metered := meter.start(ctx)
	window(ctx, n, d, func(i int, start time.Time, wctx context.Context) {
		l := f.lockers[i]
		if c, ok := cyclerOf(l); ok {
			r, err := c.Cycle(wctx, d-time.Since(start), lease, false)
			if err != nil {
				res.errs.add(err)
			}
			counts[i] = r.Count
			return
		}
		for wctx.Err() == nil {
			if err := l.Lock(wctx, lease); err != nil {
				if !windowOver(wctx, err) {
					res.errs.add(err)
					pauseAfterError(wctx)
				}
				continue
			}
			if time.Since(start) <= d {
				counts[i]++
			}
			if err := unlock(ctx, l); err != nil {
				res.errs.add(err)
			}
		}
	})
	res.server = metered.stop(ctx)
	for _, c := range counts {
		res.ops += c
	}
	return res, ctx.Err()
}

// runContended measures n workers on one lock and logs every grant.
func runContended(ctx context.Context, openF opener, meter *serverMeter, dial *dialer, subj subject.Subject, n int, d, lease time.Duration, name string) (*windowResult, error) {
	f, err := openF(ctx, dial, subj, n, func(int) string { return name }, lease)
	if err != nil {
		return nil, err
	}
	defer f.close()
	res := &windowResult{}
	var (
		mu   sync.Mutex
		log  []grant
		open []request
	)
	metered := meter.start(ctx)
	window(ctx, n, d, func(i int, start time.Time, wctx context.Context) {
		l := f.lockers[i]
		if c, ok := cyclerOf(l); ok {
			g, o, err := cycleLog(wctx, c, i, start, d, lease)
			if err != nil {
				res.errs.add(err)
			}
			mu.Lock()
			log, open = append(log, g...), append(open, o...)
			mu.Unlock()
			return
		}
		var enqueued time.Time
		enq, isEnq := l.(impl.Enqueuer)
		if isEnq {
			enq.OnEnqueued(func(at time.Time) { enqueued = at })
		}
		waitingSince := func(req time.Time) time.Duration {
			switch {
			case !isEnq:
				return req.Sub(start)
			case enqueued.IsZero():
				return notWaiting
			default:
				return enqueued.Sub(start)
			}
		}
		for wctx.Err() == nil {
			enqueued = time.Time{}
			req := time.Now()
			if err := l.Lock(wctx, lease); err != nil {
				if windowOver(wctx, err) {
					mu.Lock()
					open = append(open, request{worker: i, requested: req.Sub(start), waiting: waitingSince(req)})
					mu.Unlock()
					return
				}
				res.errs.add(err)
				pauseAfterError(wctx)
				continue
			}
			got := time.Now()
			mu.Lock()
			log = append(log, grant{worker: i, requested: req.Sub(start), waiting: waitingSince(req), granted: got.Sub(start), released: time.Since(start)})
			mu.Unlock()
			if err := unlock(ctx, l); err != nil {
				res.errs.add(err)
			}
		}
	})
	res.server = metered.stop(ctx)
	// Grants are logged in grant order, except those of cycling drivers,
	// which report theirs at the end: order by grant (holds never overlap).
	slices.SortStableFunc(log, func(a, b grant) int { return cmp.Compare(a.granted, b.granted) })
	for _, g := range log {
		if g.granted <= d {
			res.ops++
		}
	}
	c := analyze(n, log, open, d)
	res.contention = &c
	return res, ctx.Err()
}

// runCeiling measures n workers, each on its own client (shared: all on
// one client with a connection each), calling the no-op script in a loop.
func runCeiling(ctx context.Context, meter *serverMeter, opts *redis.Options, n int, shared bool, d time.Duration, prefix string) (*windowResult, error) {
	rdbs := make([]*redis.Client, n)
	for i := range rdbs {
		if shared && i > 0 {
			rdbs[i] = rdbs[0]
			continue
		}
		o := *opts
		o.PoolSize = max(o.PoolSize, n)
		rdbs[i] = redis.NewClient(&o)
		defer rdbs[i].Close()
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, rdb := range rdbs { // warm-up: connection and SCRIPT LOAD
		wg.Go(func() {
			wctx, cancel := context.WithTimeout(ctx, unlockTimeout)
			defer cancel()
			errs[i] = noopScript.Run(wctx, rdb, []string{prefix}).Err()
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("warm up ceiling: %w", err)
	}
	res := &windowResult{}
	counts := make([]int64, n)
	metered := meter.start(ctx)
	window(ctx, n, d, func(i int, start time.Time, wctx context.Context) {
		key := []string{fmt.Sprintf("%s:w%d", prefix, i)}
		for wctx.Err() == nil {
			err := noopScript.EvalSha(wctx, rdbs[i], key).Err()
			switch {
			case err == nil:
				if time.Since(start) <= d {
					counts[i]++
				}
			case wctx.Err() == nil:
				res.errs.add(err)
				pauseAfterError(wctx)
			}
		}
	})
	res.server = metered.stop(ctx)
	for _, c := range counts {
		res.ops += c
	}
	return res, ctx.Err()
}
