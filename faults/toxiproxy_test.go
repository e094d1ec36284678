package faults_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/faults/toxiproxy"
)

// linkKinds builds a Link in front of upstream: this package's proxy,
// toxiproxy in process, or a toxiproxy server through its HTTP API, so
// each network test runs on all three.
var linkKinds = []struct {
	name string
	make func(t *testing.T, name, upstream string) faults.Link
}{
	{"inprocess", func(t *testing.T, name, upstream string) faults.Link {
		p, err := faults.StartProxy(name, upstream)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}},
	{"toxiproxy", func(t *testing.T, name, upstream string) faults.Link {
		p, err := toxiproxy.Start(name, upstream)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Close() })
		return p
	}},
	{"remote", func(t *testing.T, name, upstream string) faults.Link {
		r, err := faults.NewRemote(redistest.ToxiproxyAPI(t), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		p, err := r.CreateProxy(t.Context(), name, "127.0.0.1:0", upstream)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Delete(context.Background()) })
		return p
	}},
}

// viaLink returns a client that reaches Redis through l, with the lock
// client's settings: no hidden retries, a 300 ms read/write bound.
func viaLink(t *testing.T, l faults.Link) *redis.Client {
	rdb := redis.NewClient(&redis.Options{
		Addr: l.Addr(), Password: faults.ProcessPassword(), MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: 300 * time.Millisecond, ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond,
		PoolSize: 2,
	})
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// setup starts a redis-server and a link of the given kind in front of it.
func setup(t *testing.T, kind int) (*faults.Server, faults.Link, *redis.Client) {
	s := redistest.Start(t, faults.ServerConfig{})
	l := linkKinds[kind].make(t, "redis", s.Addr())
	return s, l, viaLink(t, l)
}

// eventually polls f every 20 ms until it returns nil or d has passed.
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, d, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
