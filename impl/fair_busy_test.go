package impl

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// fairScripts drives the fair lock's scripts on one lock with explicit
// client clocks, so a test decides when each call happens.
type fairScripts struct {
	t    *testing.T
	ctx  context.Context
	rdb  *redis.Client
	keys []string
}

func newFairScripts(t *testing.T, name string) *fairScripts {
	s := redistest.Start(t, faults.ServerConfig{})
	return &fairScripts{t: t, ctx: ctxT(t), rdb: redistest.Client(t, s),
		keys: []string{name, QueueName(name), TimeoutName(name), ChannelName(name)}}
}

// acquire runs fair_acquire.lua for owner at the client clock now (epoch ms)
// and reports whether it was granted.
func (f *fairScripts) acquire(owner string, lease, wait, now int64) bool {
	f.t.Helper()
	vals, err := fairAcquire.Run(f.ctx, f.rdb, f.keys, lease, owner, wait, now, unlockMessage, publishCommand).Int64Slice()
	if err != nil {
		f.t.Fatalf("%s acquire at %d: %v", owner, now, err)
	}
	return vals[0] == 1
}

// release deletes the lock, as a final unlock (or an expiry) does.
func (f *fairScripts) release() {
	f.t.Helper()
	if err := f.rdb.Del(f.ctx, f.keys[0]).Err(); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fairScripts) queue() []string { return queueOf(f.t, f.rdb, f.keys[0]) }

func (f *fairScripts) deadline(owner string) int64 {
	f.t.Helper()
	v, err := f.rdb.ZScore(f.ctx, f.keys[2], owner).Result()
	if err != nil {
		f.t.Fatalf("zscore %s: %v", owner, err)
	}
	return int64(v)
}

// The fairness violation of redis-pause-short --subject fair --seed 114
// (issue 14, item 1), replayed on the scripts: the queue stays busy longer
// than a lease (blocking waiters hand the lock on, each with a fresh
// lease), so Redisson's arithmetic (a grant moves every deadline earlier by
// the grantee's wait) leaves the deadlines anchored at the busy period's
// start. A TryLock waiter with a short wait that reaches the head then has a
// deadline already past, and the next caller's purge evicts it while it is
// alive: that caller, which came later, is granted first. A waiter must keep
// its wait from the moment the current hold began (grant time + lease).
func TestFairBusyQueueKeepsShortWaiter(t *testing.T) {
	f := newFairScripts(t, "busy")
	const lease, long, short = 1500, 300000, 150
	t0 := int64(1_000_000_000_000)
	if !f.acquire("h", lease, long, t0) {
		t.Fatal("h: not granted on a free lock")
	}
	// Two blocking waiters queue while h holds: the busy period starts.
	for _, w := range []string{"a", "b"} {
		if f.acquire(w, lease, long, t0+10) {
			t.Fatalf("%s granted while h holds", w)
		}
	}
	f.release()
	if !f.acquire("a", lease, long, t0+1000) {
		t.Fatal("a: not granted at the head of a free lock")
	}
	// The TryLock waiter queues behind b while a holds.
	if f.acquire("try", lease, short, t0+1100) {
		t.Fatal("try granted while a holds")
	}
	f.release()
	grantB := t0 + 2000 // later than t0 + lease + short: the busy period outlived a lease
	if !f.acquire("b", lease, long, grantB) {
		t.Fatal("b: not granted at the head of a free lock")
	}
	if d, want := f.deadline("try"), grantB+lease+short; d < want {
		t.Errorf("after b's grant at %d, try's deadline is %d; want >= %d (grant + lease + its wait)", grantB, d, want)
	}
	// A later request arrives while b holds: it must queue behind try, not
	// purge it.
	if f.acquire("late", lease, long, grantB+10) {
		t.Fatal("late granted while b holds")
	}
	if q := f.queue(); !slices.Equal(q, []string{"try", "late"}) {
		t.Fatalf("queue after the later request = %v; want [try late] (try evicted while alive)", q)
	}
	f.release()
	if f.acquire("late", lease, long, grantB+20) {
		t.Fatal("late overtook try on the free lock")
	}
	if !f.acquire("try", lease, short, grantB+30) {
		t.Fatal("try: not granted at the head of a free lock")
	}
}
