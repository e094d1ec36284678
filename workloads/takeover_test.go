package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// A grant made while another process's long hold is in its section takes
// that hold over, and the taker holds long too: with a lock that never
// renews a watchdog hold, the long hold runs out after one lease, the next
// grant of its lock goes to another process, and that process keeps the
// lock for the plan's shortest long hold, past its own lease, so that the
// taker's hold runs out under it as well.
func TestATakeoverHoldsLong(t *testing.T) {
	s := startRedis(t)
	const lease = 500 * time.Millisecond
	plan := Plan{
		Workload: "takeover", Processes: 3, Locks: []string{"takeover"}, Counter: true,
		Hold: Range{Max: ms(3)}, Think: Range{Max: ms(3)}, OpTimeout: 3 * time.Second,
		Phases: &Phases{Churn: Range{Min: ms(200), Max: ms(300)}, LongHold: Scale{2.2, 2.4}, LongHoldFirst: true},
	}
	res := run(t, s, RunConfig{Subject: "never-renews", Plan: &plan, Seed: 5, Duration: 4 * time.Second, WatchdogLease: lease},
		Deps{Registry: neverRenewsRegistry(t)})
	t.Log(summary(res))
	long := time.Duration(plan.Phases.LongHold.Min * float64(lease))
	var holder *model.Op // the first long hold's section
	for i, o := range res.History.Ops {
		if o.Kind != model.Section || o.Outcome != model.OK {
			continue
		}
		d := time.Duration(o.Return - o.Call)
		switch {
		case holder == nil && d >= long:
			holder = &res.History.Ops[i]
		case holder != nil && o.Process != holder.Process && o.Call < holder.Return && d >= long-ms(20):
			return // the taker held long, inside the long hold's section
		}
	}
	t.Fatalf("no section of another process, %v or longer, began inside the long hold %+v", long, holder)
}

// neverRenewsRegistry registers "never-renews": the reentrant lock whose
// watchdog holds are taken with the watchdog's lease and never renewed.
func neverRenewsRegistry(t *testing.T) *subject.Registry {
	t.Helper()
	never := subject.Subject{
		Name: "never-renews", Reentrant: true,
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			inner := impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
			return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				m, err := inner(ctx, rdb)
				return neverRenews{Maker: m, lease: o.WatchdogLease}, err
			}
		},
	}
	reg, err := catalog.Subjects.With(never)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

type neverRenews struct {
	impl.Maker
	lease time.Duration
}

func (n neverRenews) NewLocker(name, owner string) impl.Locker {
	return neverRenewsLocker{Locker: n.Maker.NewLocker(name, owner), lease: n.lease}
}

// neverRenewsLocker takes a watchdog hold (lease 0) with the watchdog's
// lease, which nothing renews.
type neverRenewsLocker struct {
	impl.Locker
	lease time.Duration
}

func (l neverRenewsLocker) Lock(ctx context.Context, lease time.Duration) error {
	if lease <= 0 {
		lease = l.lease
	}
	return l.Locker.Lock(ctx, lease)
}

func (l neverRenewsLocker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if lease <= 0 {
		lease = l.lease
	}
	return l.Locker.TryLock(ctx, wait, lease)
}

// TestATakeoverEndsWithTheRun: a takeover holds the plan's shortest long
// hold, cut where the run ends, never shorter than the hold drawn.
func TestATakeoverEndsWithTheRun(t *testing.T) {
	r := &runner{plan: Plan{Phases: &Phases{LongHold: Scale{2.2, 3}}}, watchdogLease: time.Second, cfg: RunConfig{Duration: 10 * time.Second}}
	for _, c := range []struct {
		elapsed, drawn, min, max time.Duration
	}{
		{elapsed: 0, drawn: ms(3), min: 2200 * time.Millisecond, max: 2200 * time.Millisecond},
		{elapsed: 9 * time.Second, drawn: ms(3), min: 900 * time.Millisecond, max: time.Second},
		{elapsed: 9 * time.Second, drawn: 2 * time.Second, min: 2 * time.Second, max: 2 * time.Second},
		{elapsed: 11 * time.Second, drawn: ms(3), min: ms(3), max: ms(3)},
	} {
		r.base = time.Now().Add(-c.elapsed)
		if got := r.takeoverHold(c.drawn); got < c.min || got > c.max {
			t.Errorf("%v into the run, drawn %v: a takeover holds %v, want [%v, %v]", c.elapsed, c.drawn, got, c.min, c.max)
		}
	}
}
