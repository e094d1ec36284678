package workloads

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// TestRedissonDriverInterrupt: the protocol's interrupt reaches the owner's
// thread blocked in Redisson's lockInterruptibly (driverInterrupt).
func TestRedissonDriverInterrupt(t *testing.T) {
	driverInterrupt(t, "redisson", "l")
}

// TestSpringDriverInterrupt: the same in Spring's RedisLockRegistry, whose
// owners are threads sharing its registries (Lock.lockInterruptibly).
func TestSpringDriverInterrupt(t *testing.T) {
	for _, name := range springSubjects {
		t.Run(name, func(t *testing.T) { driverInterrupt(t, name, "spring:l") })
	}
}

// driverInterrupt: the Java driver called name hosts two owners, and the
// protocol's interrupt reaches an owner's thread blocked in the library's
// interruptible lock. p1 holds l (key in Redis); p2's interruptible lock
// waits; an interrupt of it is answered ok and p2's lock fail,
// "interrupted", while the process goes on. Nothing of p2's is left behind:
// after p1's unlock the lock stays free (p2's wait did not go on and take
// it). An interrupt of a request no longer in flight is fail.
func driverInterrupt(t *testing.T, name, key string) {
	j, rdb := ownersJVM(t, name, driver.CapInterrupt)
	ctx := context.Background()
	req := func(op, owner string) map[string]any {
		return map[string]any{"op": op, "name": "l", "owner": owner, "timeout_ms": 5000, "interruptible": true}
	}
	j.expect("p1 lock", req("lock", "p1"), "ok")
	j.send("p2 lock", req("lock", "p2")) // id 3
	time.Sleep(200 * time.Millisecond)   // let it block in its wait
	j.send("interrupt p2", map[string]any{"op": "interrupt", "owner": "p2", "target": 3, "timeout_ms": 1000})
	got := []string{j.line(), j.line()}
	sort.Strings(got)
	if !strings.HasPrefix(got[0], `{"id":3,"status":"fail","interrupted":true`) || !strings.HasPrefix(got[1], `{"id":4,"status":"ok"`) {
		t.Fatalf("replies %q: want p2's lock (3) failed, interrupted, and the interrupt (4) delivered", got)
	}
	if rdb.Exists(ctx, key).Val() != 1 {
		t.Fatalf("after p2's interrupted lock, %s is gone: p1's hold was lost", key)
	}
	j.expect("interrupt of an answered request", map[string]any{"op": "interrupt", "owner": "p2", "target": 3, "timeout_ms": 1000}, "fail")
	j.expect("p1 unlock", req("unlock", "p1"), "ok")
	time.Sleep(300 * time.Millisecond)
	if rdb.Exists(ctx, key).Val() != 0 {
		t.Fatalf("%s held after p1's unlock (p2's interrupted wait took it)", key)
	}
	j.expect("p2 lock after its interrupt", req("lock", "p2"), "ok")
	j.expect("p2 unlock", req("unlock", "p2"), "ok")
	if err := j.end(); err != nil {
		t.Fatal(err)
	}
}
