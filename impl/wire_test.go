package impl

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestKeyNames(t *testing.T) {
	tests := []struct{ got, want string }{
		{ChannelName("orders"), "redisson_lock__channel:{orders}"},
		{ChannelName("a{b}c"), "redisson_lock__channel:a{b}c"},
		{UnlockLatchName("orders", "00ff"), "redisson_unlock_latch:{orders}:00ff"},
		{UnlockLatchName("{x}", "1"), "redisson_unlock_latch:{x}:1"},
		{TokenName("orders"), "redisson_lock_token:{orders}"},
		{OwnerField("c", "7"), "c:7"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if id := newRequestID(); len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
		t.Errorf("request id %q: want 32 hex chars", id)
	}
}

// TestWireLayout reads what the lock writes in Redis and checks it against
// Redisson's layout (reference/redisson-locks.md §1.1, §3), and plays a Java
// Redisson client by hand to show the two can share a lock.
func TestWireLayout(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	if _, err := uuid.Parse(c.ID()); err != nil || len(c.ID()) != 36 {
		t.Fatalf("client id %q is not a UUID: %v", c.ID(), err)
	}
	ctx := ctxT(t)
	l := c.Reentrant("wire", "1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if typ, _ := rdb.Type(ctx, "wire").Result(); typ != "hash" {
		t.Fatalf("TYPE wire = %q; want hash", typ)
	}
	fields, _ := rdb.HGetAll(ctx, "wire").Result()
	if len(fields) != 1 || fields[c.ID()+":1"] != "1" {
		t.Fatalf("HGETALL wire = %v; want {%s:1: 1}", fields, c.ID())
	}
	if ttl, _ := rdb.PTTL(ctx, "wire").Result(); ttl <= 0 || ttl > testWatchdog {
		t.Fatalf("PTTL wire = %v; want (0, %v]", ttl, testWatchdog)
	}
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := rdb.HGet(ctx, "wire", c.ID()+":1").Result(); v != "2" {
		t.Fatalf("hold count field = %q after reentry; want 2", v)
	}

	// A waiter of another client subscribes to the Redisson channel.
	c2, _ := newTestClient(t, s)
	waiting := make(chan error, 1)
	go func() { waiting <- c2.Reentrant("wire", "2").Lock(ctx, 0) }()
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		chans, _ := rdb.PubSubChannels(ctx, "*").Result()
		return len(chans) == 1 && chans[0] == "redisson_lock__channel:{wire}"
	})
	// A raw subscriber sees the unlock message "0" only on the final unlock.
	ps := rdb.Subscribe(ctx, "redisson_lock__channel:{wire}")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	msg, err := ps.ReceiveMessage(ctx)
	if err != nil || msg.Channel != "redisson_lock__channel:{wire}" || msg.Payload != "0" {
		t.Fatalf("unlock message = %+v, %v; want \"0\" on redisson_lock__channel:{wire}", msg, err)
	}
	if err := <-waiting; err != nil {
		t.Fatal(err)
	}
	// Each unlock left its latch, expiring within the latch TTL.
	latches, err := rdb.Keys(ctx, "redisson_unlock_latch:{wire}:*").Result()
	if err != nil || len(latches) != 2 {
		t.Fatalf("latches %v, %v; want the two unlocks'", latches, err)
	}
	for _, k := range latches {
		if ttl, err := rdb.PTTL(ctx, k).Result(); err != nil || ttl <= 0 || ttl > DefaultUnlockLatchTTL {
			t.Fatalf("latch %s PTTL %v, %v; want in (0, %v]", k, ttl, err, DefaultUnlockLatchTTL)
		}
	}
	if ok, err := c2.Reentrant("wire", "2").ForceUnlock(ctx); !ok || err != nil {
		t.Fatal(ok, err)
	}

	// A Java Redisson client holds the lock (its own UUID and thread id): we
	// wait, and its unlock (DEL + PUBLISH 0) wakes us well before its TTL.
	java := uuid.NewString() + ":77"
	rdb.HSet(ctx, "wire", java, 1)
	rdb.PExpire(ctx, "wire", 30*time.Second)
	if ok, err := l.TryLock(ctx, 0, 0); ok || err != nil {
		t.Fatalf("TryLock against the Java holder = %v, %v", ok, err)
	}
	start := time.Now()
	got := make(chan error, 1)
	go func() { got <- l.Lock(ctx, time.Minute) }()
	eventually(t, 5*time.Second, "waiter subscribed", func() bool {
		n, _ := rdb.PubSubNumSub(ctx, "redisson_lock__channel:{wire}").Result()
		return n["redisson_lock__channel:{wire}"] == 2 // ours and ps
	})
	rdb.Del(ctx, "wire")
	rdb.Publish(ctx, "redisson_lock__channel:{wire}", 0)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the Java unlock message did not wake the waiter")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("woken after %v", d)
	}
	if ttl, _ := rdb.PTTL(ctx, "wire").Result(); ttl <= 50*time.Second {
		t.Fatalf("explicit lease not applied: PTTL %v", ttl)
	}
	if err := l.Unlock(context.Background()); err != nil {
		t.Fatal(err)
	}
}
