package impl

import (
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// A release whose message is lost (the key is deleted by hand, nothing is
// published) is noticed by waiters when their pub/sub connection is killed
// and resubscribes, long before the holder's TTL would wake them.
func TestHubResubscribeWakesWaiters(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	holder := c.Reentrant("resub", "h")
	if err := holder.Lock(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	const waiters = 3
	done := make(chan error, waiters)
	for i := range waiters {
		w := c.Reentrant("resub", string(rune('a'+i)))
		go func() {
			err := w.Lock(ctx, 0)
			if err == nil {
				err = w.Unlock(ctx)
			}
			done <- err
		}()
	}
	eventually(t, 5*time.Second, "one shared subscription", func() bool {
		n, _ := rdb.PubSubNumSub(ctx, ChannelName("resub")).Result()
		return n[ChannelName("resub")] == 1
	})
	time.Sleep(50 * time.Millisecond) // let the waiters reach their sleep
	holder.Abandon()
	if err := rdb.Del(ctx, "resub").Err(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := rdb.ClientKillByFilter(ctx, "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	for range waiters {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("waiters not woken by the resubscription")
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("took %v", d)
	}
	eventually(t, 5*time.Second, "PUBSUB CHANNELS empty", func() bool {
		chans, _ := rdb.PubSubChannels(ctx, "*").Result()
		return len(chans) == 0
	})
}
