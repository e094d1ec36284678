package faults_test

import (
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestCutterDropsConnectionsAndRefusesDialsForTheOutage(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	o := s.Options()
	o.MaxRetries = -1
	c := faults.NewCutter()
	c.Install(o)
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := t.Context()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, "ch")
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c.Cut(1500 * time.Millisecond); n < 2 { // longer than go-redis's dial retries (5 × 100 ms)
		t.Fatalf("Cut closed %d connections, want the command one and the pub/sub one", n)
	}
	// The first request may find its pooled connection closed; a dial
	// during the outage is refused.
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("ping right after the cut succeeded")
	}
	if err := rdb.Ping(ctx).Err(); !errors.Is(err, faults.ErrCut) {
		t.Fatalf("ping during the outage: %v, want ErrCut", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for rdb.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("the client never reconnected after the outage")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The pub/sub connection came back too: a message published now arrives.
	for {
		if err := rdb.Publish(ctx, "ch", "hi").Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-sub.Channel():
			if m.Payload != "hi" {
				t.Fatalf("got %q", m.Payload)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the subscription never came back")
		}
	}
}
