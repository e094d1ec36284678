package workloads

import (
	"context"
	"encoding/json"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// TestRedissonSharedObjects: with hello's shared_objects the Redisson
// driver serves an owner's requests on one RLock object per name, as an
// application keeps one in a field, and otherwise on a new object per
// request. Redisson's RLock keeps the lease of its last leased grant
// (internalLockLeaseTime) and a reentrant watchdog acquire on the same
// object re-arms the key with it: after a 5 s leased hold and a watchdog
// reentry, the key's TTL is the 5 s lease on a shared object and the 1.5 s
// watchdog lease on a fresh one. Both ways, the holds are released.
func TestRedissonSharedObjects(t *testing.T) {
	d := redissonDriver(t, "redisson")
	for _, tc := range []struct {
		shared bool
		ttl    func(time.Duration) bool
		want   string
	}{
		{true, func(d time.Duration) bool { return d > 2*time.Second }, "the earlier 5 s lease"},
		{false, func(d time.Duration) bool { return d > 0 && d <= 1500*time.Millisecond }, "the 1.5 s watchdog lease"},
	} {
		s := startRedis(t)
		rdb := redis.NewClient(s.Options())
		t.Cleanup(func() { _ = rdb.Close() })
		j := startJVM(t, d)
		var b driver.Banner
		if err := json.Unmarshal([]byte(j.banner), &b); err != nil || !b.Has(driver.CapSharedObjects) {
			t.Fatalf("banner %s: want capability %s", j.banner, driver.CapSharedObjects)
		}
		h := hello(s.Options().Addr, s.Options().Password, "c1")
		h["shared_objects"] = tc.shared
		j.expect("hello", h, "ok")
		j.expect("leased trylock", map[string]any{"op": "trylock", "name": "l", "lease_ms": 5000, "wait_ms": 0, "timeout_ms": 5000}, "ok")
		j.expect("watchdog reentry", map[string]any{"op": "lock", "name": "l", "lease_ms": 0, "timeout_ms": 5000}, "ok")
		if ttl := rdb.PTTL(context.Background(), "l").Val(); !tc.ttl(ttl) {
			t.Errorf("shared objects %v: the key's TTL after the reentry is %v, want %s", tc.shared, ttl, tc.want)
		}
		unlock := map[string]any{"op": "unlock", "name": "l", "timeout_ms": 5000}
		j.expect("inner unlock", unlock, "ok")
		j.expect("outer unlock", unlock, "ok")
		if n := rdb.Exists(context.Background(), "l").Val(); n != 0 {
			t.Errorf("shared objects %v: the lock is still there after both unlocks", tc.shared)
		}
		if err := j.end(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRedissonDriverReportsStalls: the Java driver reports its own stalls
// with its replies (java-common StallWatch): a JVM stopped for 300 ms
// (SIGSTOP, as a starved CPU would stall it) says so in its next reply, as
// a CLOCK_MONOTONIC window of about that length.
func TestRedissonDriverReportsStalls(t *testing.T) {
	d := redissonDriver(t, "redisson")
	s := startRedis(t)
	j := startJVM(t, d)
	j.expect("hello", hello(s.Options().Addr, s.Options().Password, "c1"), "ok")
	holdcount := map[string]any{"op": "holdcount", "name": "l", "timeout_ms": 5000}
	j.expect("holdcount", holdcount, "ok")
	if err := j.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the stall itself: what is measured
	if err := j.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var longest time.Duration
	for longest < 250*time.Millisecond && time.Now().Before(deadline) {
		r := j.expect("holdcount after the stop", holdcount, "ok")
		for _, st := range r.Stalls {
			longest = max(longest, time.Duration(st[1]-st[0]))
		}
	}
	if longest < 250*time.Millisecond || longest > 5*time.Second {
		t.Fatalf("longest stall reported %v, want about the 300 ms the JVM was stopped", longest)
	}
	if err := j.end(); err != nil {
		t.Fatal(err)
	}
}
