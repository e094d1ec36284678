package faults_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestPauseFault(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	if err := rdb.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	f := faults.Pause(s)
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	start := time.Now()
	err := rdb.Get(ctx, "k").Err()
	cancel()
	if !isTimeout(err) {
		t.Fatalf("GET on a paused server: err = %v, want a timeout", err)
	}
	t.Logf("GET on a paused server: %v after %v", err, time.Since(start))

	// A request sent during the pause is served once it ends: latency, not
	// loss.
	done := make(chan error, 1)
	start = time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- rdb.Get(ctx, "k").Err()
	}()
	time.Sleep(300 * time.Millisecond)
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("GET sent during the pause: %v", err)
	}
	if took := time.Since(start); took < 250*time.Millisecond {
		t.Errorf("GET sent during the pause took %v, want at least the pause", took)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if err := rdb.Get(t.Context(), "k").Err(); err != nil {
		t.Fatalf("GET after the pause: %v", err)
	}
}

func TestKillRestartFault(t *testing.T) {
	for _, tc := range []struct {
		p    faults.Persistence
		keep bool
	}{
		{faults.PersistNone, false},
		{faults.PersistAOFAlways, true},
	} {
		t.Run(string(tc.p), func(t *testing.T) {
			s := redistest.Start(t, faults.ServerConfig{Persistence: tc.p})
			rdb := redistest.Client(t, s)
			for i := range 100 {
				if err := rdb.Incr(t.Context(), "counter").Err(); err != nil {
					t.Fatalf("INCR %d: %v", i, err)
				}
			}
			f := faults.KillRestart(s)
			if err := f.Start(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := rdb.Ping(t.Context()).Err(); err == nil {
				t.Fatal("PING on a killed server succeeded")
			}
			if err := f.Stop(t.Context()); err != nil {
				t.Fatal(err)
			}
			if err := f.Stop(t.Context()); err != nil {
				t.Fatalf("second Stop: %v", err)
			}
			got, err := rdb.Get(t.Context(), "counter").Int()
			if errors.Is(err, redis.Nil) {
				got, err = 0, nil
			}
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if tc.keep {
				want = 100
			}
			if got != want {
				t.Errorf("counter after kill+restart with %s = %d, want %d", tc.p, got, want)
			}
		})
	}
}
