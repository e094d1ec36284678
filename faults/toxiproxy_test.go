package faults_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/gorilla/mux"
	"github.com/redis/go-redis/v9"
	"github.com/rs/zerolog"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// startToxiproxyAPI runs a real toxiproxy HTTP API in this process on
// 127.0.0.1:0 and returns its endpoint. toxiproxy v2.5.0's ApiServer.Listen
// has no shutdown and exits the process on a bind error, so the test mounts
// the library's own handlers on an httptest server instead (the same routes
// Listen registers); t.Cleanup stops the proxies and the server.
func startToxiproxyAPI(t *testing.T) string {
	t.Helper()
	api := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	r := mux.NewRouter()
	r.HandleFunc("/reset", api.ResetState).Methods("POST")
	r.HandleFunc("/proxies", api.ProxyIndex).Methods("GET")
	r.HandleFunc("/proxies", api.ProxyCreate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", api.ProxyShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}", api.ProxyUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}", api.ProxyDelete).Methods("DELETE")
	r.HandleFunc("/proxies/{proxy}/toxics", api.ToxicIndex).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics", api.ToxicCreate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicShow).Methods("GET")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicUpdate).Methods("POST")
	r.HandleFunc("/proxies/{proxy}/toxics/{toxic}", api.ToxicDelete).Methods("DELETE")
	srv := httptest.NewServer(r)
	t.Cleanup(func() {
		srv.Close()
		_ = api.Collection.Clear()
	})
	return srv.URL
}

// linkKinds builds a Link in front of upstream, in-process or through the
// HTTP API of a toxiproxy server, so each network test runs on both.
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
	{"remote", func(t *testing.T, name, upstream string) faults.Link {
		r, err := faults.NewRemote(startToxiproxyAPI(t), 5*time.Second)
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
		Addr: l.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true,
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
