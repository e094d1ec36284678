package workloads

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// The RedisLockRegistry subjects run Spring Integration's lock
// (impl/drivers/spring-redis-lock) in a JVM per logical client. They skip,
// saying why, without java or the built driver (make deps builds it).

var springSubjects = []string{"spring-lock-spin", "spring-lock-pubsub"}

// TestSpringDriverSelftest is the RedisLockRegistry driver's protocol
// self-test, in both modes: banner, hello, reentry (one key
// "spring:<name>" holding the registry's clientId), not-owner unlocks, the
// library's renewal of watchdog holds, a registry per lease, the final unlock
// of an expired hold, a waiter handed the lock, an unlock whose UNLINK
// script timed out but ran, Redis error replies, a hello that cannot
// connect, the cycle request, and the end of input.
func TestSpringDriverSelftest(t *testing.T) {
	t.Parallel() // a redis-server of its own; the runs mostly wait
	for _, name := range springSubjects {
		t.Run(name, func(t *testing.T) {
			d := redissonDriver(t, name) // any shipped driver, by name
			s := startRedis(t)
			rdb := redis.NewClient(s.Options())
			t.Cleanup(func() { _ = rdb.Close() })
			a, b := startJVM(t, d), startJVM(t, d)
			want := `{"protocol":2,"driver":"` + name + `","version":"6.5.5","capabilities":["reentrant","watchdog","cycle","interrupt","forms","owners"],"topologies":["single"]}`
			if a.banner != want {
				t.Fatalf("banner %s, want %s", a.banner, want)
			}
			addr, pass := s.Options().Addr, s.Options().Password
			a.expect("lock before hello", map[string]any{"op": "lock", "name": "l", "timeout_ms": 1000}, "error")
			a.expect("hello", hello(addr, pass, "a"), "ok")
			a.expect("hello twice", hello(addr, pass, "a"), "error")
			b.expect("hello", hello(addr, pass, "b"), "ok")
			a.expect("unknown op", map[string]any{"op": "frobnicate", "timeout_ms": 1000}, "error")
			springReentryAndRenewal(t, rdb, a, b)
			springLeases(t, rdb, a, b)
			springUnlinkTimeout(t, rdb, a, name == "spring-lock-pubsub")
			springErrors(t, rdb, d, a)
			springCycle(t, rdb, a, b)
			springUnlockForms(t, rdb, a, b)

			a.expect("lock before the end of input", map[string]any{"op": "lock", "name": "l", "timeout_ms": 3000}, "ok")
			for _, j := range []*jvm{a, b} {
				if err := j.end(); err != nil {
					t.Errorf("driver at end of input: %v", err)
				}
			}
			if n := rdb.Exists(context.Background(), "spring:l").Val(); n != 1 {
				t.Fatal("the end of input released a's hold")
			}
		})
	}
}

// springReentryAndRenewal: a watchdog hold, reentered, kept past several
// leases by the library's renewal task, released by its second unlock only.
func springReentryAndRenewal(t *testing.T, rdb *redis.Client, a, b *jvm) {
	ctx := context.Background()
	a.expect("lock (watchdog)", map[string]any{"op": "lock", "name": "l", "timeout_ms": 3000}, "ok")
	a.expect("trylock again (reentry)", map[string]any{"op": "trylock", "name": "l", "wait_ms": 0, "timeout_ms": 3000}, "ok")
	owner := rdb.Get(ctx, "spring:l").Val()
	if owner == "" {
		t.Fatal("no key spring:l holding the registry's clientId")
	}
	b.expect("trylock while a holds", map[string]any{"op": "trylock", "name": "l", "wait_ms": 200, "lease_ms": 2000, "timeout_ms": 3000}, "fail")
	b.expect("unlock of a's lock", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "fail")
	time.Sleep(3 * time.Second) // 2 watchdog leases
	if pttl := rdb.PTTL(ctx, "spring:l").Val(); pttl <= 0 || pttl > 1500*time.Millisecond {
		t.Fatalf("pttl %v after 2 leases: want the renewal to keep it within 1.5 s", pttl)
	}
	if got := rdb.Get(ctx, "spring:l").Val(); got != owner {
		t.Fatalf("spring:l = %q after renewals, want %q", got, owner)
	}
	a.expect("unlock (1 of 2)", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "ok")
	if n := rdb.Exists(ctx, "spring:l").Val(); n != 1 {
		t.Fatal("the first of two unlocks removed the key")
	}
	a.expect("unlock (2 of 2)", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "ok")
	if n := rdb.Exists(ctx, "spring:l").Val(); n != 0 {
		t.Fatal("key left after the last unlock")
	}
	a.expect("unlock again", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "fail")
}

// springLeases: an explicit lease is its registry's expireAfter; a reentry
// with another lease is refused without effect; the final unlock of a hold
// that ran out is fail; a waiter is handed the lock at the holder's unlock.
func springLeases(t *testing.T, rdb *redis.Client, a, b *jvm) {
	ctx := context.Background()
	b.expect("trylock lease 1001 ms", map[string]any{"op": "trylock", "name": "l", "wait_ms": 0, "lease_ms": 1001, "timeout_ms": 3000}, "ok")
	if pttl := rdb.PTTL(ctx, "spring:l").Val(); pttl < 900*time.Millisecond || pttl > 1001*time.Millisecond {
		t.Fatalf("pttl %v: want the lease", pttl)
	}
	owner := rdb.Get(ctx, "spring:l").Val()
	if r := b.expect("reentry with another lease", map[string]any{"op": "trylock", "name": "l", "wait_ms": 0, "lease_ms": 5000, "timeout_ms": 3000}, "error"); !strings.Contains(r.Error, "one expireAfter") {
		t.Fatalf("reply %+v: want the one-expireAfter error", r)
	}
	if pttl := rdb.PTTL(ctx, "spring:l").Val(); pttl > 1001*time.Millisecond || rdb.Get(ctx, "spring:l").Val() != owner {
		t.Fatalf("pttl %v: the refused reentry changed the hold", pttl)
	}
	start := time.Now()
	a.send("lock while b holds", map[string]any{"op": "lock", "name": "l", "lease_ms": 5000, "timeout_ms": 5000})
	time.Sleep(200 * time.Millisecond)
	b.expect("unlock while a waits", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "ok")
	a.recv("lock while b holds", "ok")
	if w := time.Since(start); w > 900*time.Millisecond {
		t.Fatalf("a granted %v after its call: want it handed the lock at b's unlock (~200 ms), not at the lease's end", w)
	}
	a.expect("unlock", map[string]any{"op": "unlock", "name": "l", "timeout_ms": 3000}, "ok")

	b.expect("trylock lease 300 ms", map[string]any{"op": "trylock", "name": "e", "wait_ms": 0, "lease_ms": 300, "timeout_ms": 3000}, "ok")
	time.Sleep(500 * time.Millisecond)
	b.expect("unlock after the lease ran out", map[string]any{"op": "unlock", "name": "e", "timeout_ms": 3000}, "fail")
	b.expect("trylock again", map[string]any{"op": "trylock", "name": "e", "wait_ms": 0, "lease_ms": 300, "timeout_ms": 3000}, "ok")
}

// springUnlinkTimeout: an unlock whose UNLINK script times out but runs late
// (CLIENT PAUSE WRITE past Lettuce's 1 s command timeout) is error, not
// fail: the library takes the timeout for "UNLINK not supported", runs its
// DEL script, which finds the key already deleted by the UNLINK script, and
// throws the ConcurrentModificationException of an expired hold
// (spring-redis-lock/repro/UnlinkTimeout.java). The registry unlocks with
// its DEL script from then on; in PUB_SUB mode that script fails after it
// deleted the key (its PUBLISH names KEYS[2], which is not passed:
// spring-integration GH-10751, fixed in 6.5.7), an error reply that leaves
// the release unknown.
func springUnlinkTimeout(t *testing.T, rdb *redis.Client, a *jvm, pubsub bool) {
	ctx := context.Background()
	trylock := func() map[string]any {
		return map[string]any{"op": "trylock", "name": "u", "wait_ms": 0, "lease_ms": 7000, "timeout_ms": 3000}
	}
	unlock := func() map[string]any { return map[string]any{"op": "unlock", "name": "u", "timeout_ms": 5000} }
	a.expect("trylock lease 7000 ms", trylock(), "ok")
	if err := rdb.Do(ctx, "CLIENT", "PAUSE", 1700, "WRITE").Err(); err != nil {
		t.Fatal(err)
	}
	if r := a.expect("unlock whose UNLINK script times out and runs late", unlock(), "error"); !strings.Contains(r.Error, "UNLINK") || r.RedisError {
		t.Fatalf("reply %+v: want the unknown outcome of a timed-out UNLINK script, without redis_error", r)
	}
	if n := rdb.Exists(ctx, "spring:u").Val(); n != 0 {
		t.Fatal("spring:u left: the UNLINK script did not run after its timeout")
	}
	a.expect("trylock again", trylock(), "ok")
	want := "ok"
	if pubsub {
		want = "error"
	}
	if r := a.expect("unlock by the DEL script", unlock(), want); pubsub && (!r.RedisError || !strings.Contains(r.Error, "must be strings or integers")) {
		t.Fatalf("reply %+v: want the error reply of the DEL script's PUBLISH (GH-10751)", r)
	}
	if n := rdb.Exists(ctx, "spring:u").Val(); n != 0 {
		t.Fatal("spring:u left after the unlock by the DEL script")
	}
}

// springErrors: Redis error replies and a Redis nobody listens on.
func springErrors(t *testing.T, rdb *redis.Client, d catalog.Driver, a *jvm) {
	rdb.HSet(context.Background(), "spring:h", "f", "v")
	if r := a.expect("lock on a hash key", map[string]any{"op": "trylock", "name": "h", "wait_ms": 0, "timeout_ms": 3000}, "error"); !r.RedisError || !strings.Contains(r.Error, "WRONGTYPE") {
		t.Fatalf("reply %+v: want WRONGTYPE with redis_error", r)
	}
	c := startJVM(t, d)
	c.expect("hello to a closed port", map[string]any{"op": "hello", "protocol": 1, "redis": []string{closedAddr(t)}, "client": "c", "timeout_ms": 2000}, "error")
}

// springCycle: the cycle request locks and unlocks by itself, logging
// each grant, while another driver holds nothing; one too long for its
// timeout_ms is refused at once.
func springCycle(t *testing.T, rdb *redis.Client, a, b *jvm) {
	r := a.expect("cycle", map[string]any{"op": "cycle", "name": "c", "duration_ms": 300, "log": true, "timeout_ms": 5000}, "ok")
	if r.Count == 0 || len(r.Grants) < r.Count {
		t.Fatalf("cycle: count %d, %d grants logged: want grants, each logged", r.Count, len(r.Grants))
	}
	for _, g := range r.Grants {
		if g[0] > g[1] || g[1] > g[2] {
			t.Fatalf("cycle grant %v: want requested <= granted <= released", g)
		}
	}
	if n := rdb.Exists(context.Background(), "spring:c").Val(); n != 0 {
		t.Fatal("key left after the cycle")
	}
	b.expect("cycle too long for its timeout", map[string]any{"op": "cycle", "name": "c", "duration_ms": 3000, "timeout_ms": 3000}, "error")
}

// springUnlockForms: an unlock request with form_draw is made in the form
// it draws, unlock() (even draws) or unlock() by an interrupted thread (odd
// draws: 6.5.5 hands the key's removal to its executor), named in the
// reply; either releases the hold, and the interrupt status does not reach
// the owner's next call (a trylock that waits, which an interrupted thread's
// would end at once, answered "interrupted").
func springUnlockForms(t *testing.T, rdb *redis.Client, a, b *jvm) {
	ctx := context.Background()
	for _, tc := range []struct {
		draw int
		form string
	}{{0, "unlock()"}, {7, "unlock-interrupted()"}, {2, "unlock()"}, {1, "unlock-interrupted()"}} {
		a.expect("lock", map[string]any{"op": "lock", "name": "f", "lease_ms": 5000, "timeout_ms": 3000}, "ok")
		r := a.expect(tc.form, map[string]any{"op": "unlock", "name": "f", "form_draw": tc.draw, "timeout_ms": 3000}, "ok")
		if r.Form != tc.form {
			t.Errorf("unlock with form_draw %d: form %q, want %q", tc.draw, r.Form, tc.form)
		}
		deadline := time.Now().Add(2 * time.Second)
		for rdb.Exists(ctx, "spring:f").Val() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if rdb.Exists(ctx, "spring:f").Val() != 0 {
			t.Fatalf("%s (form_draw %d) answered ok and left the key", tc.form, tc.draw)
		}
		b.expect("lock after "+tc.form, map[string]any{"op": "lock", "name": "f", "lease_ms": 5000, "timeout_ms": 3000}, "ok")
		if r := a.expect("trylock that waits after "+tc.form, map[string]any{"op": "trylock", "name": "f", "wait_ms": 300, "lease_ms": 5000, "timeout_ms": 3000}, "fail"); r.Interrupted {
			t.Errorf("the trylock after %s was interrupted: the form's interrupt status outlived its call", tc.form)
		}
		b.expect("unlock", map[string]any{"op": "unlock", "name": "f", "timeout_ms": 3000}, "ok")
	}
	if r := a.expect("default unlock of nothing", map[string]any{"op": "unlock", "name": "f", "timeout_ms": 3000}, "fail"); r.Form != "" {
		t.Errorf("unlock without form_draw: form %q, want none", r.Form)
	}
}

// TestSpringLegacyRelease: Spring Integration 6.1.9 (fetched and built into
// the cache on first use, from the driver's src/compat/legacy) has no
// renewal task: its banner announces no watchdog, and a hold lasts its
// lease, after which another client's trylock is granted.
func TestSpringLegacyRelease(t *testing.T) {
	if _, err := exec.LookPath("mvn"); err != nil {
		t.Skip("no Maven here to build Spring Integration 6.1.9")
	}
	d, err := redissonDriver(t, "spring-lock-pubsub").AtRelease(context.Background(), "6.1.9")
	if err != nil {
		t.Fatal(err)
	}
	s := startRedis(t)
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	a, b := startJVM(t, d), startJVM(t, d)
	want := `{"protocol":2,"driver":"spring-lock-pubsub","version":"6.1.9","capabilities":["reentrant","cycle","interrupt","forms","owners"],"topologies":["single"]}`
	if a.banner != want {
		t.Fatalf("banner %s, want %s", a.banner, want)
	}
	addr, pass := s.Options().Addr, s.Options().Password
	a.expect("hello", hello(addr, pass, "a"), "ok")
	b.expect("hello", hello(addr, pass, "b"), "ok")
	a.expect("lock (1 s lease)", map[string]any{"op": "lock", "name": "l", "lease_ms": 1000, "timeout_ms": 3000}, "ok")
	b.expect("trylock while a holds", map[string]any{"op": "trylock", "name": "l", "wait_ms": 0, "lease_ms": 1000, "timeout_ms": 3000}, "fail")
	time.Sleep(1500 * time.Millisecond)
	if n := rdb.Exists(context.Background(), "spring:l").Val(); n != 0 {
		t.Fatal("a's hold is still there 1.5 s into its 1 s lease")
	}
	b.expect("trylock after a's lease", map[string]any{"op": "trylock", "name": "l", "wait_ms": 0, "lease_ms": 1000, "timeout_ms": 3000}, "ok")
}

// TestSpringInterruptedUnlockRun: a run that varies its call forms on
// Spring's lock makes half its unlocks by an interrupted thread
// (unlock-interrupted(), recorded in the op), and on the pinned 6.5.5, whose
// RedisLock hands such an unlock's key removal to its executor and returns
// (spring-lock-pubsub-7.0.4-interrupted-unlock-deletes-regrant, shown
// against the library alone by repro/interrupted-unlock.sh), the next
// holder of the registry has its key deleted under it: a double grant with
// no fault, cut short.
func TestSpringInterruptedUnlockRun(t *testing.T) {
	shipped(t, "spring-lock-pubsub")
	s := startRedis(t)
	cfg := RunConfig{Subject: "spring-lock-pubsub", Workload: DefaultWorkload, Seed: 5, Duration: 6 * time.Second, CallForms: true, ThreadsPerProcess: 3}
	res := run(t, s, cfg, Deps{})
	t.Log(summary(res))
	forms := map[string]int{}
	for _, o := range res.History.Ops {
		if o.Kind == model.Release {
			forms[o.Form]++
		}
	}
	if forms["unlock()"] == 0 || forms["unlock-interrupted()"] == 0 {
		t.Fatalf("unlock forms %v: want both unlock() and unlock-interrupted()", forms)
	}
	sigs := res.Report.Signatures()
	want := model.Signature{Class: model.ClassSafety, Shape: model.ShapeDoubleGrant, Mechanism: model.MechanismCutShort, Fault: model.FaultNone}
	if res.Report.Verdict != model.Invalid || !want.MatchesAny(sigs) {
		t.Fatalf("verdict %s, signatures %v: want a double grant cut short, no fault\n%s", res.Report.Verdict, sigs, res.Report)
	}
}
