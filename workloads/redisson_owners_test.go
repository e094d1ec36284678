package workloads

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl/driver"
)

// TestRedissonDriverOwners: one Redisson process hosts owners as threads of
// its one RedissonClient (protocol 2). p1 holds l; p2's lock waits while
// p1's unlock, sent after it, is served on p1's own thread (not queued
// behind the waiting lock); then p2 holds l, as a hash field
// "<client id>:<thread id>" of a thread that is neither the main thread nor
// p1's (the same client id: one client), and its hold count is its own.
func TestRedissonDriverOwners(t *testing.T) {
	j, rdb := ownersJVM(t, "redisson", driver.CapOwners)
	ctx := context.Background()
	req := func(op, owner string) map[string]any {
		return map[string]any{"op": op, "name": "l", "owner": owner, "timeout_ms": 5000}
	}
	j.expect("p1 lock", req("lock", "p1"), "ok")
	p1 := onlyField(t, rdb.HGetAll(ctx, "l").Val())
	j.send("p2 lock", req("lock", "p2"))
	j.send("p1 unlock", req("unlock", "p1"))
	// p2's lock (3) can be granted only once p1's unlock (4), sent after
	// it, was served: both answered ok shows the unlock was not queued
	// behind the waiting lock. Their replies come in either order (each
	// owner's thread writes its own; on a busy machine p1's may be last).
	got := []string{j.line(), j.line()}
	slices.Sort(got)
	if !strings.HasPrefix(got[0], `{"id":3,"status":"ok"`) || !strings.HasPrefix(got[1], `{"id":4,"status":"ok"`) {
		t.Fatalf("replies %q: want p1's unlock (4) answered and p2's lock (3) granted", got)
	}
	p2 := onlyField(t, rdb.HGetAll(ctx, "l").Val())
	c1, t1, _ := strings.Cut(p1, ":")
	c2, t2, _ := strings.Cut(p2, ":")
	if c1 != c2 || t1 == t2 || t1 == "1" || t2 == "1" {
		t.Fatalf("holders %s then %s: want one client id and two owner threads, neither the main one", p1, p2)
	}
	if r := j.expect("p2 holdcount", map[string]any{"op": "holdcount", "name": "l", "owner": "p2", "timeout_ms": 5000}, "ok"); r.Count != 1 {
		t.Fatalf("p2's hold count %d, want 1", r.Count)
	}
	j.expect("p1 unlock of p2's hold", req("unlock", "p1"), "fail")
	j.expect("p2 unlock", req("unlock", "p2"), "ok")
	if err := j.end(); err != nil {
		t.Fatal(err)
	}
}

// onlyField returns the one field of a Redisson lock hash.
// ownersJVM starts the shipped Java driver called name, checks that its
// banner says protocol 2 and capability want, and says hello for two owners
// on a redis-server of its own, which rdb reaches.
func ownersJVM(t *testing.T, name, want string) (*jvm, *redis.Client) {
	d := redissonDriver(t, name)
	s := startRedis(t)
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	j := startJVM(t, d)
	var b driver.Banner
	if err := json.Unmarshal([]byte(j.banner), &b); err != nil || b.Protocol != 2 || !b.Has(want) {
		t.Fatalf("banner %s: want protocol 2 with %s", j.banner, want)
	}
	h := hello(s.Options().Addr, s.Options().Password, "c1")
	h["protocol"], h["owners"] = 2, 2
	j.expect("hello", h, "ok")
	return j, rdb
}

func onlyField(t *testing.T, h map[string]string) string {
	t.Helper()
	if len(h) != 1 {
		t.Fatalf("hash %v: want one owner field", h)
	}
	for f := range h {
		return f
	}
	return ""
}

// line reads the next reply line, whatever its id.
func (j *jvm) line() string {
	j.t.Helper()
	if !j.out.Scan() {
		j.t.Fatalf("no reply: %v", j.out.Err())
	}
	return j.out.Text()
}
