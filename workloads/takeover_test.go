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

// With Phases.SiblingsWait, the other owners of the long holder's client
// process make their cycles on the long hold's lock while it is in its
// section, and the owners of the other client process on other locks;
// without it, every owner draws from all the locks. (The owners try with
// short waits: a blocking call that draws the long hold's lock would wait
// there through it, flag or not.) Both runs draw the same
// schedule (the same seed), so the control shows the test can fail.
func TestSiblingsWaitOnALongHold(t *testing.T) {
	s := startRedis(t)
	const lease = 300 * time.Millisecond
	locks := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	for _, wait := range []bool{true, false} {
		plan := Plan{
			Workload: "siblings", Processes: 2, ThreadsPerProcess: 3, Locks: locks, Counter: true,
			TryLockPercent: 100, Wait: Range{Max: ms(5)}, // no owner parks on one lock
			Hold: Range{Max: ms(2)}, Think: Range{Max: ms(2)}, OpTimeout: 3 * time.Second,
			Phases: &Phases{Churn: Range{Min: ms(200), Max: ms(300)}, LongHold: Scale{3, 3}, LongHoldFirst: true, SiblingsWait: wait},
		}
		res := run(t, s, RunConfig{Subject: "reentrant", Plan: &plan, Seed: 7, Duration: 2 * time.Second, WatchdogLease: lease}, Deps{})
		c := countAcquires(res.History, time.Duration(plan.Phases.LongHold.Min*float64(lease)))
		t.Logf("siblings wait %v: %+v", wait, c)
		switch {
		case c.lock == "":
			t.Fatalf("siblings wait %v: no long hold in the history", wait)
		case wait && (c.siblingsOn == 0 || c.siblingsOff > 0 || c.othersOn > 0):
			t.Errorf("siblings wait: want siblings on the held lock only and others off it, got %+v", c)
		case !wait && (c.siblingsOff == 0 || c.othersOn == 0):
			t.Errorf("every owner draws: want siblings on other locks and others on the held one, got %+v", c)
		}
	}
}

// acquireCounts counts acquires around a long hold of lock: the
// siblings' (the other owners of its client process) on its lock (those
// that waited into it past its first 50 ms) and on others (those called
// after then: a cycle begun before it may still reenter its lock), and the
// other client processes' owners' called on its lock after then.
type acquireCounts struct {
	lock                              string
	siblingsOn, siblingsOff, othersOn int
}

// countAcquires counts the acquires around the first section of h at
// least long (acquireCounts).
func countAcquires(h *model.History, long time.Duration) (c acquireCounts) {
	var holder *model.Op
	for i, o := range h.Ops {
		if o.Kind == model.Section && o.Outcome == model.OK && time.Duration(o.Return-o.Call) >= long {
			holder = &h.Ops[i]
			break
		}
	}
	if holder == nil {
		return c
	}
	c.lock = holder.Lock
	from := holder.Call + int64(ms(50))
	for _, o := range h.Ops {
		if o.Kind != model.Acquire || o.Process == holder.Process || o.Call > holder.Return {
			continue
		}
		switch {
		case o.Client != holder.Client:
			if o.Lock == holder.Lock && o.Call > from {
				c.othersOn++
			}
		case o.Lock == holder.Lock && o.Return > from:
			c.siblingsOn++ // waiting inside it
		case o.Lock != holder.Lock && o.Call > from:
			c.siblingsOff++
		}
	}
	return c
}
