package faults_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

func TestTraceArgs(t *testing.T) {
	script := "local v = redis.call('get', KEYS[1])\nreturn v"
	for _, tc := range []struct {
		frame []byte
		want  string
	}{
		{[]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2\r\nv1\r\n"), "k v1"},
		{[]byte("PING\r\n"), ""},
		{[]byte("*4\r\n$4\r\nEVAL\r\n$" + strconv.Itoa(len(script)) + "\r\n" + script + "\r\n$1\r\n1\r\n$1\r\nk\r\n"), "<script 45 B> 1 k"},
		{[]byte("*3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$6\r\nhunter\r\n"), "<redacted> <redacted>"},
		{[]byte("*5\r\n$5\r\nHELLO\r\n$1\r\n3\r\n$4\r\nAUTH\r\n$7\r\ndefault\r\n$6\r\nhunter\r\n"), "3 AUTH default <redacted>"},
		{[]byte("*2\r\n$3\r\nGET\r\n$50\r\n" + strings.Repeat("x", 50) + "\r\n"), strings.Repeat("x", 40) + "…"},
	} {
		if got := faults.TraceArgs(tc.frame); got != tc.want {
			t.Errorf("TraceArgs(%q) = %q, want %q", tc.frame, got, tc.want)
		}
	}
}

func TestTraceReply(t *testing.T) {
	for frame, want := range map[string]string{
		"+OK\r\n":                       "OK",
		"-ERR no\r\n":                   "ERR no",
		":1\r\n":                        "1",
		"$-1\r\n":                       "nil",
		"_\r\n":                         "nil",
		"$3\r\nabc\r\n":                 `"abc"`,
		"*2\r\n:0\r\n:1485\r\n":         "[2: 0 1485]",
		"*2\r\n*1\r\n:1\r\n$1\r\na\r\n": `[2: [1:] "a"]`,
	} {
		if got := faults.TraceReply([]byte(frame)); got != want {
			t.Errorf("TraceReply(%q) = %q, want %q", frame, got, want)
		}
	}
}

// TestWireTrace: a traced Wire reports each connection's open and close
// and every command with its reply, in order, passwords redacted.
func TestWireTrace(t *testing.T) {
	w, rdb, _ := wired(t, func(o *redis.Options) { o.Protocol = 2 })
	var log traceLog
	w.Trace(log.add)
	ctx := context.Background()
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	setDone := time.Now() // the client has the reply: the trace says it was passed on no later
	if err := rdb.Get(ctx, "k").Err(); err != nil {
		t.Fatal(err)
	}
	_ = rdb.Close()
	evs := log.await(t, func(evs []faults.WireEvent) bool { return len(evs) > 0 && evs[len(evs)-1].Kind == "close" })
	for _, e := range evs {
		if e.Cmd == "SET" && e.Return.After(setDone) {
			t.Errorf("SET's reply traced as passed on at %v, after the client had it (%v)", e.Return, setDone)
		}
	}
	var got []string
	for _, e := range evs {
		s := e.Kind
		if e.Kind == "cmd" && (e.Cmd == "HELLO" || e.Cmd == "CLIENT") {
			continue // the client's handshake
		}
		if e.Kind == "cmd" {
			s += " " + e.Cmd + " " + e.Args + " -> " + e.Reply
			if e.Return.Before(e.Call) || e.Return.IsZero() {
				t.Errorf("%s: answered at %v, sent at %v", s, e.Return, e.Call)
			}
		}
		got = append(got, s)
	}
	want := []string{"open", "cmd SET k v -> OK", `cmd GET k -> "v"`, "close"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestPauseAtReply: the armed pause runs before the reply of the next
// matching command reaches the client, and only once.
func TestPauseAtReply(t *testing.T) {
	w, rdb, _ := wired(t, nil)
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	var ran []string
	release := make(chan struct{})
	disarm := w.PauseAtReply(func(cmd string) bool { return cmd == "GET" }, func() {
		ran = append(ran, "before")
		<-release
	})
	if err := rdb.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rdb.Get(ctx, "k").Err() }()
	select {
	case err := <-done:
		t.Fatalf("GET answered while its pause ran: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !disarm() {
		t.Error("disarm: the trap did not spring")
	}
	if err := rdb.Get(ctx, "k").Err(); err != nil {
		t.Fatal(err)
	}
	if len(ran) != 1 {
		t.Fatalf("before ran %d times, want 1", len(ran))
	}
}

// BenchmarkWireTrace measures what the wire trace costs a lock's round
// trip: the same EVAL of a compare-and-set script through a Wire with no
// tracer and through one whose tracer encodes every event as JSON (what
// the runner writes to wire.jsonl), side by side, with the direct path for
// scale.
func BenchmarkWireTrace(b *testing.B) {
	s := redistest.Start(b, faults.ServerConfig{})
	script := redis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`)
	run := func(b *testing.B, addr string) {
		o := s.Options()
		o.Addr = addr
		rdb := redis.NewClient(o)
		defer rdb.Close()
		ctx := context.Background()
		b.ResetTimer()
		for b.Loop() {
			if err := script.Run(ctx, rdb, []string{"lockcheck:bench:L"}, "p0", 1500).Err(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("direct", func(b *testing.B) { run(b, s.Addr()) })
	for _, traced := range []bool{false, true} {
		name := "wire"
		if traced {
			name = "wire-traced"
		}
		b.Run(name, func(b *testing.B) {
			w, err := faults.StartWire("c0", s.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			if traced {
				enc := json.NewEncoder(io.Discard)
				var mu sync.Mutex
				w.Trace(func(e faults.WireEvent) {
					mu.Lock()
					defer mu.Unlock()
					_ = enc.Encode(e)
				})
			}
			run(b, w.Addr())
		})
	}
}

// TestWireTraceRequestsLostWithTheConnection: a request the client writes
// as Redis kills its connection is traced, unanswered, whether the proxy
// had read it before it saw the kill or reads it after (Redis's side
// gone, the client told by EOF, the proxy still reads what was sent).
func TestWireTraceRequestsLostWithTheConnection(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	w, err := faults.StartWire("c0", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	var log traceLog
	w.Trace(log.add)
	conn, err := net.Dial("tcp", w.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	r := bufio.NewReader(conn)
	send := func(args ...string) {
		frame := fmt.Sprintf("*%d\r\n", len(args))
		for _, a := range args {
			frame += fmt.Sprintf("$%d\r\n%s\r\n", len(a), a)
		}
		if _, err := conn.Write([]byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	if pw := s.Options().Password; pw != "" {
		send("AUTH", pw)
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			t.Fatalf("AUTH: %q, %v", line, err)
		}
	}
	send("PING")
	if line, err := r.ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q, %v", line, err)
	}
	ctx := context.Background()
	for _, addr := range w.ClientAddrs() { // as KillClient does, without waiting for the close
		if err := redistest.Client(t, s).Do(ctx, "CLIENT", "KILL", "ADDR", addr).Err(); err != nil {
			t.Fatal(err)
		}
	}
	send("SET", "lost", "v") // sent as the proxy learns of the kill: read, never answered
	if line, err := r.ReadString('\n'); err == nil {
		t.Fatalf("a reply %q after the kill, want EOF", line)
	}
	isSet := func(e faults.WireEvent) bool { return e.Kind == "cmd" && e.Cmd == "SET" }
	evs := log.await(t, func(evs []faults.WireEvent) bool { return slices.ContainsFunc(evs, isSet) })
	if e := evs[slices.IndexFunc(evs, isSet)]; !e.Return.IsZero() {
		t.Fatalf("SET traced as answered (%q at %v), want unanswered", e.Reply, e.Return)
	}
}

// traceLog keeps what a Wire traced (its add is the Wire's tracer, called
// from the Wire's goroutines).
type traceLog struct {
	mu  sync.Mutex
	evs []faults.WireEvent
}

func (l *traceLog) add(e faults.WireEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.evs = append(l.evs, e)
}

// await polls, for 5 s at most, until done accepts the events so far, and
// returns them.
func (l *traceLog) await(t *testing.T, done func([]faults.WireEvent) bool) []faults.WireEvent {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		l.mu.Lock()
		evs := slices.Clone(l.evs)
		l.mu.Unlock()
		if done(evs) {
			return evs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the trace after 5 s: %+v", evs)
		}
	}
}
