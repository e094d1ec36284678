package faults_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestServerMissingBinary(t *testing.T) {
	_, err := faults.StartServer(t.Context(), faults.ServerConfig{Bin: "/nonexistent/redis-server"})
	if !errors.Is(err, faults.ErrNoRedisServer) {
		t.Fatalf("err = %v, want ErrNoRedisServer", err)
	}
}

func TestParsePersistence(t *testing.T) {
	for in, want := range map[string]faults.Persistence{"": faults.PersistNone, "none": faults.PersistNone, "aof-always": faults.PersistAOFAlways} {
		got, err := faults.ParsePersistence(in)
		if err != nil || got != want {
			t.Errorf("ParsePersistence(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := faults.ParsePersistence("rdb"); err == nil {
		t.Error("ParsePersistence(rdb): want error")
	}
}

// TestServerLifecycle pauses, resumes, kills and restarts a real server and
// checks what each does to a client and to the data, per persistence mode.
func TestServerLifecycle(t *testing.T) {
	for _, tc := range []struct {
		p        faults.Persistence
		survives bool
	}{{faults.PersistNone, false}, {faults.PersistAOFAlways, true}, {faults.PersistAOFEverysec, true}} {
		t.Run(string(tc.p), func(t *testing.T) {
			s := redistest.Start(t, faults.ServerConfig{Persistence: tc.p})
			rdb := redistest.Client(t, s)
			ctx := t.Context()
			if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatal(err)
			}
			addr := s.Addr()

			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
			pctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			err := rdb.Get(pctx, "k").Err()
			cancel()
			if err == nil {
				t.Fatal("GET on a paused server succeeded")
			}
			if err := s.Resume(); err != nil {
				t.Fatal(err)
			}
			if got, err := rdb.Get(ctx, "k").Result(); err != nil || got != "v" {
				t.Fatalf("after resume: GET = %q, %v", got, err)
			}

			pid := s.PID()
			if err := s.Kill(); err != nil {
				t.Fatal(err)
			}
			if s.Running() {
				t.Fatal("running after Kill")
			}
			if err := s.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			if s.Addr() != addr || s.PID() == pid {
				t.Fatalf("restart: addr %s pid %d, before %s pid %d", s.Addr(), s.PID(), addr, pid)
			}
			got, err := rdb.Get(ctx, "k").Result()
			if tc.survives && (err != nil || got != "v") {
				t.Fatalf("after restart with %s: GET = %q, %v; want v", tc.p, got, err)
			}
			if !tc.survives && !errors.Is(err, redis.Nil) {
				t.Fatalf("after restart with %s: GET = %q, %v; want nil", tc.p, got, err)
			}
			dir := s.Dir()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Fatalf("data dir %s left behind: %v", dir, err)
			}
		})
	}
}
