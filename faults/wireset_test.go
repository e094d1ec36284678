package faults_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// wireSetClients starts two redis-servers and a WireSet that routes only
// the first through a Wire; it returns the set and a client of each
// server that dials through the set.
func wireSetClients(t *testing.T) (*faults.WireSet, [2]*redis.Client, [2]string) {
	t.Helper()
	a := redistest.Start(t, faults.ServerConfig{})
	b := redistest.Start(t, faults.ServerConfig{})
	ws := faults.NewWireSet("c0", func(addr string) bool { return addr == a.Addr() })
	t.Cleanup(func() { _ = ws.Close() })
	var rdbs [2]*redis.Client
	for i, s := range []*faults.Server{a, b} {
		o := s.Options()
		o.Dialer, o.Protocol = ws.Dialer, 2
		rdbs[i] = redis.NewClient(o)
		t.Cleanup(func() { _ = rdbs[i].Close() })
	}
	return ws, rdbs, [2]string{a.Addr(), b.Addr()}
}

// TestWireSetTracesTheServersItRoutes: the set's trace has the commands
// sent to the server its route accepts, named by that server's address and
// on connections numbered among the set's; the other server's are not in
// it (it was dialed directly).
func TestWireSetTracesTheServersItRoutes(t *testing.T) {
	ws, rdbs, addrs := wireSetClients(t)
	var log traceLog
	ws.Trace(log.add)
	ctx := context.Background()
	for i, rdb := range rdbs {
		if err := rdb.Set(ctx, "k", i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	_ = rdbs[0].Close()
	evs := log.await(t, func(evs []faults.WireEvent) bool { return len(evs) > 0 && evs[len(evs)-1].Kind == "close" })
	var got []string
	for _, e := range evs {
		if e.Node != addrs[0] || e.Conn != 1 {
			t.Errorf("%+v: want node %s, connection 1", e, addrs[0])
		}
		if e.Kind == "cmd" && e.Cmd != "SET" {
			continue // the handshake
		}
		got = append(got, strings.TrimSpace(e.Kind+" "+e.Cmd+" "+e.Args))
	}
	if want := "open|cmd SET k 0|close"; strings.Join(got, "|") != want {
		t.Fatalf("trace %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestWireSetNumbersConnectionsAcrossWires: two servers routed through the
// set get Wires of their own, whose connections the trace numbers apart.
func TestWireSetNumbersConnectionsAcrossWires(t *testing.T) {
	a := redistest.Start(t, faults.ServerConfig{})
	b := redistest.Start(t, faults.ServerConfig{})
	ws := faults.NewWireSet("c0", nil)
	t.Cleanup(func() { _ = ws.Close() })
	var log traceLog
	ws.Trace(log.add)
	ctx := context.Background()
	for _, s := range []*faults.Server{a, b} {
		o := s.Options()
		o.Dialer = ws.Dialer
		rdb := redis.NewClient(o)
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		_ = rdb.Close()
	}
	evs := log.await(t, func(evs []faults.WireEvent) bool {
		closes := 0
		for _, e := range evs {
			if e.Kind == "close" {
				closes++
			}
		}
		return closes == 2
	})
	nodeOf := map[int64]string{}
	for _, e := range evs {
		if n, ok := nodeOf[e.Conn]; ok && n != e.Node {
			t.Fatalf("connection %d names %s and %s", e.Conn, n, e.Node)
		}
		nodeOf[e.Conn] = e.Node
	}
	if len(nodeOf) != 2 || nodeOf[1] == nodeOf[2] {
		t.Fatalf("connections %v: want 1 and 2, one per server", nodeOf)
	}
}

// TestWireSetPausesOnce: a pause armed on the set lands on the first
// matching reply, also on a Wire started after it was armed, and runs
// once; after Close no dial goes through.
func TestWireSetPausesOnce(t *testing.T) {
	ws, rdbs, _ := wireSetClients(t)
	var ran atomic.Int32
	disarm := ws.PauseAtReply(func(cmd string) bool { return cmd == "GET" }, func() { ran.Add(1) })
	ctx := context.Background()
	for range 3 {
		if err := rdbs[0].Get(ctx, "k").Err(); err != nil && err != redis.Nil {
			t.Fatal(err)
		}
	}
	if !disarm() || ran.Load() != 1 {
		t.Fatalf("pause sprang %v, ran %d times: want once", disarm(), ran.Load())
	}
	_ = ws.Close()
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := ws.Dialer(dctx, "tcp", rdbs[0].Options().Addr); err == nil {
		t.Fatal("dial after Close went through")
	}
}

// TestWireSetTracesWhileConnectionsOpen: switching the set's tracer and
// arming pauses while its clients open connections neither deadlocks nor
// loses the opens traced (a Wire reports an open from its accepting
// goroutine while the set may be handing its Wires a new tracer).
func TestWireSetTracesWhileConnectionsOpen(t *testing.T) {
	ws, rdbs, _ := wireSetClients(t)
	var log traceLog
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			ws.Trace(log.add)
			ws.PauseAtReply(func(string) bool { return false }, func() {})()
		}
	}()
	for range 200 {
		if err := rdbs[0].Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		_ = rdbs[0].Close() // the next command opens a new connection
		o := rdbs[0].Options()
		rdbs[0] = redis.NewClient(o)
	}
	_ = rdbs[0].Close()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the tracer switches never returned: a lock-order cycle between the set and its Wires")
	}
	log.await(t, func(evs []faults.WireEvent) bool {
		opens := 0
		for _, e := range evs {
			if e.Kind == "open" {
				opens++
			}
		}
		return opens >= 190 // a few may open before the first Trace
	})
}
