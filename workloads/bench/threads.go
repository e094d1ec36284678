package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ErrNoThreads is wrapped by the note of a cell that Config.Threads cannot
// measure for a subject: its driver hosts one owner per process, so N
// threads of one client do not exist for it.
var ErrNoThreads = errors.New("its driver hosts one owner per process (no capability owners)")

// canThreads reports whether subj can run n workers as threads of one
// client process (Config.Threads): any Go lock, and an external subject
// whose driver hosts owners (subject.HostsOwners). One worker always can.
func canThreads(subj subject.Subject, n int) error {
	if n <= 1 || subj.HostsOwners() {
		return nil
	}
	return fmt.Errorf("%s: %w", subj.Name, ErrNoThreads)
}

// openShared opens n workers of subj as threads of one client process (see
// Config.Threads): one go-redis client, with a connection per worker at
// most (PoolSize n, as Redisson's default pool of 64 has for 32 threads),
// one Maker opened for n owners (an external driver then hosts them all
// in one process, each on a thread of its own) and n handles, worker i
// locking name(i) as owner wi, on the client dial gives client 0. Each
// worker warms up as in openFleet.
func openShared(ctx context.Context, dial *dialer, subj subject.Subject, n int, name func(i int) string, lease time.Duration) (_ *fleet, err error) {
	f := &fleet{}
	defer func() {
		if err != nil {
			f.close()
		}
	}()
	o, err := dial.options(0)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", subj.Name, err)
	}
	o.PoolSize = max(o.PoolSize, n)
	rdb := redis.NewClient(o)
	f.rdbs = append(f.rdbs, rdb)
	mf, _ := subj.MakerFor(subject.OpenOptions{WatchdogLease: impl.DefaultWatchdogTimeout, Owners: n})
	m, err := mf(ctx, rdb)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", subj.Name, err)
	}
	f.makers = append(f.makers, m)
	for i := range n {
		f.lockers = append(f.lockers, m.NewLocker(name(i), fmt.Sprintf("w%d", i)))
	}
	if r, ok := m.(impl.Readier); ok {
		if err := r.Ready(ctx); err != nil {
			return nil, fmt.Errorf("start %s: %w", subj.Name, err)
		}
	}
	if err := warmUp(ctx, subj.Name, n, func(int) impl.Maker { return m }, name, lease); err != nil {
		return nil, err
	}
	return f, nil
}

// warmUp runs one warm-up cycle of each of n workers (worker i on maker(i),
// as owner wi) on a private lock, concurrently: connections, scripts and a
// driver's JIT are ready before the window opens.
func warmUp(ctx context.Context, subj string, n int, maker func(i int) impl.Maker, name func(i int) string, lease time.Duration) error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l := maker(i).NewLocker(name(i)+":warm", fmt.Sprintf("w%d", i))
			if c, ok := cyclerOf(l); ok {
				// A JVM's code is interpreted until its JIT has seen it
				// run. The cycle only warms: its lock is private, and a
				// failure (a starved JVM's timeout) shows again, counted,
				// in the window.
				_, _ = c.Cycle(ctx, cycleWarmup, lease, false)
				return
			}
			wctx, cancel := context.WithTimeout(ctx, unlockTimeout)
			defer cancel()
			if err := l.Lock(wctx, lease); err != nil {
				errs[i] = err
				return
			}
			errs[i] = l.Unlock(wctx)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("warm up %s: %w", subj, err)
	}
	return nil
}
