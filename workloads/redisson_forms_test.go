package workloads

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/model"
)

// TestRedissonCallForms: the Redisson driver makes a request that carries
// form_draw in the form it draws among those that fit its wait and lease
// (CallForms.java: the default first), names it in the reply, and the call
// does what the request asks whatever its form: leases in seconds and in
// microseconds are the same leases, tryLock(-1, ...) is one attempt,
// unlock() releases one hold.
func TestRedissonCallForms(t *testing.T) {
	d := redissonDriver(t, "redisson")
	s := startRedis(t)
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	j := startJVM(t, d)
	var b driver.Banner
	if err := json.Unmarshal([]byte(j.banner), &b); err != nil || !b.Has(driver.CapForms) {
		t.Fatalf("banner %s: want capability %s", j.banner, driver.CapForms)
	}
	j.expect("hello", hello(s.Options().Addr, s.Options().Password, "c1"), "ok")
	ttl := func(what string, lo, hi time.Duration) {
		t.Helper()
		if got := rdb.PTTL(context.Background(), "l").Val(); got < lo || got > hi {
			t.Errorf("%s: the key's TTL is %v, want %v to %v", what, got, lo, hi)
		}
	}
	step := func(what string, req map[string]any, status, form string) {
		t.Helper()
		req["name"], req["timeout_ms"] = "l", 5000
		if r := j.expect(what, req, status); r.Form != form {
			t.Errorf("%s: form %q, want %q", what, r.Form, form)
		}
	}
	// wait 0, lease 2000: tryLockAsync, tryLock in MILLISECONDS, SECONDS,
	// MICROSECONDS, then tryLock(-1, ...).
	step("no-wait trylock", map[string]any{"op": "trylock", "wait_ms": 0, "lease_ms": 2000, "form_draw": 4}, "ok", "tryLock(-1, 2000, MILLISECONDS)")
	ttl("the no-wait trylock's lease", 1500*time.Millisecond, 2*time.Second)
	// lease 3000: lockAsync, lockInterruptibly in MILLISECONDS, SECONDS, MICROSECONDS.
	step("reentry in seconds", map[string]any{"op": "lock", "lease_ms": 3000, "form_draw": 2 + 4*1000}, "ok", "lockInterruptibly(3, SECONDS)")
	ttl("the reentry's lease", 2500*time.Millisecond, 3*time.Second)
	step("reentry in microseconds", map[string]any{"op": "lock", "lease_ms": 3000, "form_draw": 3}, "ok", "lockInterruptibly(3000000, MICROSECONDS)")
	ttl("the second reentry's lease", 2500*time.Millisecond, 3*time.Second)
	for i := range 3 {
		step("unlock()", map[string]any{"op": "unlock", "form_draw": 1}, "ok", "unlock()")
		if i < 2 && rdb.Exists(context.Background(), "l").Val() != 1 {
			t.Fatalf("unlock() %d of 3 released the lock", i+1)
		}
	}
	step("unlock() of nothing", map[string]any{"op": "unlock", "form_draw": 3}, "fail", "unlock()")
	// A watchdog hold: lockAsync, lockInterruptibly(-1, MILLISECONDS), lockInterruptibly().
	step("watchdog lock", map[string]any{"op": "lock", "lease_ms": 0, "form_draw": 2}, "ok", "lockInterruptibly()")
	step("default unlock", map[string]any{"op": "unlock"}, "ok", "")
	if err := j.end(); err != nil {
		t.Fatal(err)
	}
}

// TestRedissonCallFormsRun: a run that varies its call forms on Redisson's
// lock is valid, and its ops record many forms. A loaded machine makes fewer
// ops in a run's 4 s, so a form none of them drew is looked for in the next
// seed's run (at most 3).
func TestRedissonCallFormsRun(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	shipped(t, "redisson")
	s := startRedis(t)
	want := []string{"lockAsync", "lockInterruptibly", "tryLockAsync", "tryLock", "unlockAsync", "unlock"}
	forms := map[string]bool{}
	for seed := int64(7); seed < 10 && len(forms) < len(want); seed++ {
		cfg := RunConfig{Subject: "redisson", Workload: DefaultWorkload, Seed: seed, Duration: 4 * time.Second, CallForms: true}
		res := run(t, s, cfg, Deps{})
		t.Log(summary(res))
		if res.Report.Verdict != model.Valid {
			t.Fatalf("%s\n%s", summary(res), res.Report)
		}
		for _, o := range res.History.Ops {
			if f := strings.SplitN(o.Form, "(", 2)[0]; slices.Contains(want, f) && (o.Kind == model.Acquire || o.Kind == model.Release) {
				forms[f] = true
			}
		}
	}
	for _, w := range want {
		if !forms[w] {
			t.Errorf("no op made in form %s(...); forms: %v", w, forms)
		}
	}
}
