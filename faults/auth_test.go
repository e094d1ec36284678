package faults_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// refusesStrangers checks that a client without the password gets no
// answer but NOAUTH from addr, and that the password is not on the command
// line of the process pid (every local user can read it in ps).
func refusesStrangers(t *testing.T, addr string, pid int, password string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	stranger := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer stranger.Close()
	if err := stranger.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("%s: a client without the password: %v, want NOAUTH", addr, err)
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	if password == "" || strings.Contains(string(cmdline), password) {
		t.Errorf("%s: the password is empty or on the command line: %q", addr, cmdline)
	}
}

func TestServerRequiresPassword(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	refusesStrangers(t, s.Addr(), s.PID(), s.Password())
	if err := redistest.Client(t, s).Set(t.Context(), "k", "v", 0).Err(); err != nil {
		t.Fatalf("Options() cannot write: %v", err)
	}
	if s.Password() != faults.ProcessPassword() || len(s.Password()) < 32 {
		t.Errorf("default password is not the process's random one")
	}
	own := redistest.Start(t, faults.ServerConfig{Password: "another-secret"})
	if own.Options().Password != "another-secret" {
		t.Errorf("ServerConfig.Password ignored")
	}
	// A replica authenticates to its master (masterauth) and survives a restart.
	host, port, _ := strings.Cut(s.Addr(), ":")
	r := redistest.Start(t, faults.ServerConfig{Args: []string{"--replicaof", host, port}})
	rc := redistest.Client(t, r)
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := rc.Get(t.Context(), "k").Result()
		if err == nil && v == "v" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica never synced from its password-protected master: %q, %v", v, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSentinelRequiresPassword(t *testing.T) {
	top := startSentinel(t, faults.SentinelConfig{Replicas: 1})
	for _, s := range append(append([]*faults.Server(nil), top.Nodes...), top.Sentinels...) {
		refusesStrangers(t, s.Addr(), s.PID(), top.Password())
	}
	rdb := top.NewFailoverClient()
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("FailoverClient cannot write: %v", err)
	}
}
