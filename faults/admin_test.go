package faults_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestClientPause(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	admin := faults.NewAdmin(s.Options())
	t.Cleanup(func() { _ = admin.Close() })
	if err := rdb.Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	short := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(t.Context(), 200*time.Millisecond)
	}

	all := admin.ClientPause(faults.PauseAll, time.Second)
	start := time.Now()
	if err := all.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := short()
	err := rdb.Get(ctx, "k").Err()
	cancel()
	if !isTimeout(err) {
		t.Errorf("GET under CLIENT PAUSE ALL: err = %v, want a timeout", err)
	}
	if err := all.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("Stop of a 1 s CLIENT PAUSE ALL returned after %v, want the full pause", took)
	}
	eventually(t, 2*time.Second, "GET after UNPAUSE", func() error { return rdb.Get(t.Context(), "k").Err() })

	write := admin.ClientPause(faults.PauseWrite, 30*time.Second)
	if err := write.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = short()
	if err := rdb.Get(ctx, "k").Err(); err != nil {
		t.Errorf("GET under CLIENT PAUSE WRITE: %v, want served", err)
	}
	cancel()
	ctx, cancel = short()
	err = rdb.Set(ctx, "k", "w", 0).Err()
	cancel()
	if !isTimeout(err) {
		t.Errorf("SET under CLIENT PAUSE WRITE: err = %v, want a timeout", err)
	}
	if err := write.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Second, "SET after UNPAUSE", func() error { return rdb.Set(t.Context(), "k", "w", 0).Err() })
}

func TestDebugSleep(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{Args: []string{"--enable-debug-command", "yes"}})
	rdb := redistest.Client(t, s)
	admin := faults.NewAdmin(s.Options())
	t.Cleanup(func() { _ = admin.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	f := admin.DebugSleep(700 * time.Millisecond)
	start := time.Now()
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	// Wait until the sleep has begun: a PING then takes most of it.
	eventually(t, 2*time.Second, "DEBUG SLEEP in effect", func() error {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer cancel()
		if err := rdb.Ping(ctx).Err(); !isTimeout(err) {
			return fmt.Errorf("PING: %v, not sleeping yet", err)
		}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	err := rdb.Ping(ctx).Err()
	cancel()
	if err != nil {
		t.Fatalf("PING after the sleep: %v", err)
	}
	if took := time.Since(start); took < 600*time.Millisecond {
		t.Errorf("PING came back %v after DEBUG SLEEP 0.7 started, want >= 600ms", took)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestClientKill(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	admin := faults.NewAdmin(s.Options())
	t.Cleanup(func() { _ = admin.Close() })
	if err := rdb.Ping(t.Context()).Err(); err != nil {
		t.Fatal(err)
	}
	id, err := rdb.ClientID(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	f := admin.ClientKill("normal")
	if err := f.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := f.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The killed connection is gone: the client's next command either fails
	// or (if go-redis noticed the close first) runs on a new connection.
	eventually(t, 2*time.Second, "command after CLIENT KILL", func() error { return rdb.Ping(t.Context()).Err() })
	id2, err := rdb.ClientID(t.Context()).Result()
	if err != nil {
		t.Fatal(err)
	}
	if id2 == id {
		t.Errorf("client id %d unchanged after CLIENT KILL TYPE normal", id)
	}
	// The admin's own connection survives (SKIPME yes).
	if err := admin.ClientKill("normal").Start(t.Context()); err != nil {
		t.Errorf("second CLIENT KILL on the admin's connection: %v", err)
	}
}
