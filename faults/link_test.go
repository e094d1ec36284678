package faults_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
)

// forEachLink runs f as a subtest for the in-process and the remote link.
func forEachLink(t *testing.T, f func(t *testing.T, kind int)) {
	for i, k := range linkKinds {
		t.Run(k.name, func(t *testing.T) { f(t, i) })
	}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

// medianRTT is the median of n PING round trips through rdb.
func medianRTT(t *testing.T, rdb *redis.Client, n int) time.Duration {
	t.Helper()
	rtts := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := rdb.Ping(t.Context()).Err(); err != nil {
			t.Fatalf("ping: %v", err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	return rtts[n/2]
}

func TestLatency(t *testing.T) {
	forEachLink(t, func(t *testing.T, kind int) {
		_, l, rdb := setup(t, kind)
		base := medianRTT(t, rdb, 9)
		f := faults.Latency(l, 80*time.Millisecond, 5*time.Millisecond)
		if err := f.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		slow := medianRTT(t, rdb, 5)
		t.Logf("median PING: %v without, %v with 80±5 ms latency", base, slow)
		if slow-base < 70*time.Millisecond {
			t.Errorf("latency fault added %v to the round trip, want >= 70ms", slow-base)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
		// A loaded machine can be slow, but not 80 ms slow on every ping.
		eventually(t, 5*time.Second, "RTT back to normal", func() error {
			if rtt := medianRTT(t, rdb, 5); rtt >= 60*time.Millisecond {
				return errors.New("median RTT " + rtt.String())
			}
			return nil
		})
	})
}

func TestBlackHole(t *testing.T) {
	forEachLink(t, func(t *testing.T, kind int) {
		_, l, rdb := setup(t, kind)
		if err := rdb.Set(t.Context(), "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		f := faults.BlackHole(l)
		// Stop before Start is a no-op: the connection survives.
		id, err := rdb.ClientID(t.Context()).Result()
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		if id2, err := rdb.ClientID(t.Context()).Result(); err != nil || id2 != id {
			t.Fatalf("after Stop without Start: client id %d, %v; want the same connection (%d)", id2, err, id)
		}
		if err := f.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		// The client's bound is its 300 ms ReadTimeout; a ctx of 2 s must not
		// be what ends the operation.
		for _, op := range []string{"established connection", "new connection"} {
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
			start := time.Now()
			err := rdb.Get(ctx, "k").Err()
			took := time.Since(start)
			cancel()
			if !isTimeout(err) {
				t.Fatalf("%s: GET during black hole: err = %v, want a timeout", op, err)
			}
			if took < 250*time.Millisecond || took > 1500*time.Millisecond {
				t.Errorf("%s: GET during black hole took %v, want about the 300 ms ReadTimeout", op, took)
			}
			t.Logf("%s: GET during black hole: %v after %v", op, err, took)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "GET after heal", func() error { return rdb.Get(t.Context(), "k").Err() })
		if err := f.Stop(t.Context()); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
	})
}

func TestDown(t *testing.T) {
	forEachLink(t, func(t *testing.T, kind int) {
		_, l, rdb := setup(t, kind)
		if err := rdb.Ping(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		f := faults.Down(l)
		if err := f.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		// The established connection reads EOF; a new one is refused.
		for range 2 {
			start := time.Now()
			err := rdb.Ping(t.Context()).Err()
			if err == nil || isTimeout(err) {
				t.Fatalf("PING with the proxy down: err = %v, want a connection error", err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("PING with the proxy down took %v, want a prompt error", took)
			}
			t.Logf("PING with the proxy down: %v", err)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "PING after heal", func() error { return rdb.Ping(t.Context()).Err() })
	})
}

func TestReset(t *testing.T) {
	forEachLink(t, func(t *testing.T, kind int) {
		_, l, rdb := setup(t, kind)
		if err := rdb.Ping(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		f := faults.Reset(l)
		if err := f.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			err := rdb.Ping(t.Context()).Err()
			if err == nil || isTimeout(err) {
				t.Fatalf("PING under reset: err = %v, want a connection error", err)
			}
			t.Logf("PING under reset: %v", err)
		}
		if err := f.Stop(t.Context()); err != nil {
			t.Fatal(err)
		}
		eventually(t, 5*time.Second, "PING after heal", func() error { return rdb.Ping(t.Context()).Err() })
	})
}
