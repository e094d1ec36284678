package faults_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
)

// incr is a script whose runs count themselves in key "runs".
var incr = redis.NewScript(`return redis.call('incr', KEYS[1])`)

// wired starts a redis-server and a Wire in front of it; it returns the
// Wire, a client through it (options changed by opts) and a direct one.
func wired(t *testing.T, opts func(*redis.Options)) (*faults.Wire, *redis.Client, *redis.Client) {
	t.Helper()
	s := redistest.Start(t, faults.ServerConfig{})
	w, err := faults.StartWire("c0", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	o := s.Options()
	o.Addr = w.Addr()
	if opts != nil {
		opts(o)
	}
	rdb := redis.NewClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return w, rdb, redistest.Client(t, s)
}

func TestWireForwards(t *testing.T) {
	_, rdb, direct := wired(t, nil)
	ctx := context.Background()
	pipe := rdb.Pipeline()
	for i := range 100 {
		pipe.Set(ctx, "k", i, 0)
		pipe.Get(ctx, "k")
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil || len(cmds) != 200 || cmds[199].(*redis.StringCmd).Val() != "99" {
		t.Fatalf("pipeline through the wire: %d replies, %v", len(cmds), err)
	}
	if v, err := direct.Get(ctx, "k").Result(); v != "99" || err != nil {
		t.Fatalf("direct GET k = %q, %v", v, err)
	}
}

// TestRefuseOnce: exactly one matching command is refused, Redis runs
// nothing for it, and the commands around it go through.
func TestRefuseOnce(t *testing.T) {
	w, rdb, direct := wired(t, nil)
	ctx := context.Background()
	sub := rdb.Subscribe(ctx, "ch") // a subscribed connection sends no lock command
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	f := faults.RefuseOnce(w, faults.LockCommands)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatalf("PING is not a lock command, yet: %v", err)
	}
	var failed []string
	for range 3 {
		if err := incr.Run(ctx, rdb, []string{"runs"}).Err(); err != nil {
			failed = append(failed, err.Error())
		}
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "lockcheck-refused") {
		t.Fatalf("refused: %q, want exactly one 'unknown command lockcheck-refused'", failed)
	}
	if n, _ := direct.Get(ctx, "runs").Int(); n != 2 {
		t.Fatalf("the script ran %d times, want 2 (the refused one ran nothing)", n)
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Cmd != "EVALSHA" || sp[0].Action != "refused" {
		t.Fatalf("sprung = %+v", sp)
	}
}

// TestSlowReply: the script runs, its caller times out, and the trap does
// not spring again.
func TestSlowReply(t *testing.T) {
	w, rdb, direct := wired(t, func(o *redis.Options) { o.ReadTimeout, o.MaxRetries = 200*time.Millisecond, -1 })
	ctx := context.Background()
	if err := incr.Load(ctx, rdb).Err(); err != nil {
		t.Fatal(err)
	}
	f := faults.SlowReply(w, faults.LockCommands, time.Second)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	err := incr.Run(ctx, rdb, []string{"runs"}).Err()
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("a reply held for 1s with a 200ms read timeout: %v, want a timeout", err)
	}
	if n, _ := direct.Get(ctx, "runs").Int(); n != 1 {
		t.Fatalf("the script ran %d times, want 1: Redis ran it, only its reply was late", n)
	}
	if err := incr.Run(ctx, rdb, []string{"runs"}).Err(); err != nil {
		t.Fatalf("the next call: %v (the trap springs once)", err)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if held := time.Since(sent); held < time.Second {
		t.Fatalf("Stop returned %v after the request, before its reply was let through (1s): the window must cover the delay", held)
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Action != "delayed 1s" {
		t.Fatalf("sprung = %+v", sp)
	}
}

// TestKillClient: Redis closes the client's connections; the client
// reconnects on its own, with a new address.
func TestKillClient(t *testing.T) {
	w, rdb, direct := wired(t, nil)
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := w.ClientAddrs()
	if len(before) != 1 {
		t.Fatalf("client addrs %v, want one connection", before)
	}
	if err := faults.KillClient(w, direct).Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitKilled(t, direct, before[0])
	// The pooled connection was killed: the first PING may fail on it
	// (these options retry nothing); the next dials again.
	if err := rdb.Ping(ctx).Err(); err != nil {
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatalf("the second PING after the kill: %v", err)
		}
	}
	if after := w.ClientAddrs(); len(after) == 0 || slices.Contains(after, before[0]) {
		t.Fatalf("client addrs after the kill %v (before %v): want a new connection", after, before)
	}
}

// TestRefuseOnceFailsOneRenewal: aimed at a holder of lockcheck's reentrant
// lock (watchdog lease 600 ms, renewed every 200 ms), RefuseOnce fails
// exactly one renewal; the watchdog renews at its next tick and the hold
// outlives several leases.
func TestRefuseOnceFailsOneRenewal(t *testing.T) {
	w, rdb, direct := wired(t, func(o *redis.Options) { o.MaxRetries = -1 })
	ctx := context.Background()
	c := impl.NewClient(rdb, impl.WithWatchdogTimeout(600*time.Millisecond))
	t.Cleanup(func() { _ = c.Close() })
	lock := c.Reentrant("refused", "holder")
	if err := lock.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	f := faults.RefuseOnce(w, faults.LockCommands)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Second)
	for len(w.Sprung()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no renewal was refused within 2 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = f.Stop(ctx)
	time.Sleep(1500 * time.Millisecond) // 2.5 leases, 7 renewal ticks
	if n := direct.Exists(ctx, "refused").Val(); n != 1 {
		t.Fatal("the hold ran out after one refused renewal: the watchdog did not renew again")
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Cmd != "EVALSHA" {
		t.Fatalf("sprung %+v: want exactly one refused renewal (EVALSHA)", sp)
	}
	if err := lock.Unlock(ctx); err != nil {
		t.Fatalf("unlock after the refused renewal: %v", err)
	}
}

// TestSlowReplySkipsErrorReplies: a reply Redis gives without running the
// command (NOSCRIPT, before go-redis falls back from EVALSHA to EVAL) is
// not held; the trap springs on the EVAL that runs.
func TestSlowReplySkipsErrorReplies(t *testing.T) {
	w, rdb, direct := wired(t, func(o *redis.Options) { o.ReadTimeout, o.MaxRetries = 200*time.Millisecond, -1 })
	ctx := context.Background()
	f := faults.SlowReply(w, faults.LockCommands, time.Second)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Stop(ctx) }()
	err := incr.Run(ctx, rdb, []string{"runs"}).Err() // not loaded: EVALSHA, NOSCRIPT, EVAL
	if err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("the EVAL's reply held for 1s: %v, want a timeout", err)
	}
	if n, _ := direct.Get(ctx, "runs").Int(); n != 1 {
		t.Fatalf("the script ran %d times, want 1", n)
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Cmd != "EVAL" {
		t.Fatalf("sprung %+v: want one, on the EVAL", sp)
	}
}

// TestRefuseSubscribe: the first subscription after Start is refused, on a
// connection that subscribed already too; Redis subscribes it to nothing
// and the next subscription goes through.
func TestRefuseSubscribe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, sub, direct := subscribedWire(t, ctx)
	f := faults.RefuseSubscribe(w)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Stop(ctx) }()
	if err := sub.Subscribe(ctx, "refused"); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Receive(ctx); err == nil || !strings.Contains(err.Error(), "lockcheck-refused") {
		t.Fatalf("the refused SUBSCRIBE's reply: %v, want Redis's error for the renamed command", err)
	}
	if n := direct.PubSubNumSub(ctx, "refused").Val()["refused"]; n != 0 {
		t.Fatalf("%d subscribers of the refused channel, want 0", n)
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Cmd != "SUBSCRIBE" || sp[0].Action != "refused" {
		t.Fatalf("sprung %+v: want one refusal, of the SUBSCRIBE", sp)
	}
	if err := sub.Subscribe(ctx, "second"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the next SUBSCRIBE goes through (the trap springs once)", subscribed(ctx, direct, "second"))
}

// TestSlowSubscribe: a subscription's confirmation, on a connection that
// subscribed already, reaches the client only after the delay, after
// Redis subscribed it; a message published meanwhile waits behind it.
func TestSlowSubscribe(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, sub, direct := subscribedWire(t, ctx)
	f := faults.SlowSubscribe(w, 500*time.Millisecond)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	if err := sub.Subscribe(ctx, "slow"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "Redis subscribes the delayed SUBSCRIBE", subscribed(ctx, direct, "slow"))
	if err := direct.Publish(ctx, "first", "hello").Err(); err != nil {
		t.Fatal(err)
	}
	msg, err := sub.Receive(ctx)
	if s, ok := msg.(*redis.Subscription); err != nil || !ok || s.Channel != "slow" {
		t.Fatalf("first frame after the delay: %v, %v; want the confirmation of slow", msg, err)
	}
	if d := time.Since(sent); d < 500*time.Millisecond {
		t.Fatalf("the confirmation came %v after the SUBSCRIBE, want at least the 500ms delay", d)
	}
	if m, err := sub.Receive(ctx); err != nil || m.(*redis.Message).Payload != "hello" {
		t.Fatalf("the message behind it: %v, %v", m, err)
	}
	if err := f.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if sp := w.Sprung(); len(sp) != 1 || sp[0].Cmd != "SUBSCRIBE" || !strings.HasPrefix(sp[0].Action, "delayed") {
		t.Fatalf("sprung %+v: want one delay, of the SUBSCRIBE", sp)
	}
}

// subscribedWire is wired's Wire and direct client, with a pub/sub
// connection through the Wire already subscribed to channel "first".
func subscribedWire(t *testing.T, ctx context.Context) (*faults.Wire, *redis.PubSub, *redis.Client) {
	t.Helper()
	w, rdb, direct := wired(t, nil)
	sub := rdb.Subscribe(ctx, "first")
	t.Cleanup(func() { _ = sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	return w, sub, direct
}

// subscribed is eventually's check that channel ch has one subscriber.
func subscribed(ctx context.Context, direct *redis.Client, ch string) func() error {
	return func() error {
		if n := direct.PubSubNumSub(ctx, ch).Val()[ch]; n != 1 {
			return fmt.Errorf("%d subscribers of %s", n, ch)
		}
		return nil
	}
}

// TestKillClientAtReply: aimed at a request in flight, the kill lets the
// request run in Redis, loses its reply (the caller sees an error), and
// opens its window at the kill; with no matching request it kills at once
// when within runs out.
func TestKillClientAtReply(t *testing.T) {
	t.Run("at the request", func(t *testing.T) {
		w, rdb, direct := wired(t, func(o *redis.Options) { o.MaxRetries = -1 })
		ctx := context.Background()
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		f := faults.KillClientAtReply(w, direct, func(cmd string) bool { return cmd == "SET" }, 10*time.Second)
		errc := make(chan error, 1)
		go func() { errc <- f.Start(ctx) }()
		armedAt := time.Now()
		var setErr error
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if setErr = rdb.Set(ctx, "k", "v", 0).Err(); setErr != nil || time.Now().After(deadline) {
				break
			}
			_ = direct.Del(ctx, "k").Err() // not killed yet: the trap was not armed in time
		}
		if setErr == nil {
			t.Fatal("no SET failed: the kill never sprang")
		}
		if err := <-errc; err != nil {
			t.Fatalf("Start: %v", err)
		}
		// The kill runs in the killed connection's own reply pump: Start
		// must not wait there for that connection to close (it would only
		// close when Start's wait for it gave up, a second later).
		if waited := time.Since(f.(faults.Beginner).Began()); waited > 500*time.Millisecond {
			t.Errorf("Start returned %v after the kill: the connections' close waited for itself", waited)
		}
		if v := direct.Get(ctx, "k").Val(); v != "v" {
			t.Fatalf("GET k = %q: the killed request must have run", v)
		}
		began := f.(faults.Beginner).Began()
		if began.Before(armedAt) {
			t.Fatalf("window opens at %v, before the trap was armed (%v)", began, armedAt)
		}
	})
	t.Run("an error reply ran nothing", func(t *testing.T) {
		w, rdb, direct := wired(t, func(o *redis.Options) { o.MaxRetries = -1 })
		ctx := context.Background()
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		f := faults.KillClientAtReply(w, direct, faults.LockCommands, 10*time.Second)
		errc := make(chan error, 1)
		go func() { errc <- f.Start(ctx) }()
		var setErr error
		for deadline := time.Now().Add(5 * time.Second); setErr == nil && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			// NOSCRIPT runs nothing: its error passes, and the trap waits.
			if err := rdb.EvalSha(ctx, "0000000000000000000000000000000000000000", []string{"k"}).Err(); err == nil || !strings.Contains(err.Error(), "NOSCRIPT") {
				t.Fatalf("EVALSHA of no script = %v, want NOSCRIPT passed through", err)
			}
			setErr = rdb.Set(ctx, "k", "v", 0).Err()
		}
		if setErr == nil {
			t.Fatal("no SET failed: the kill never sprang")
		}
		if err := <-errc; err != nil {
			t.Fatalf("Start: %v", err)
		}
	})
	t.Run("within runs out", func(t *testing.T) {
		w, rdb, direct := wired(t, nil)
		ctx := context.Background()
		if err := rdb.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		before := w.ClientAddrs()
		f := faults.KillClientAtReply(w, direct, func(cmd string) bool { return cmd == "SET" }, 50*time.Millisecond)
		if err := f.Start(ctx); err != nil {
			t.Fatal(err)
		}
		waitKilled(t, direct, before[0])
	})
}

// waitKilled polls CLIENT LIST until Redis no longer lists addr.
func waitKilled(t *testing.T, direct *redis.Client, addr string) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(5 * time.Second)
	for strings.Contains(direct.ClientList(ctx).Val(), "addr="+addr) {
		if time.Now().After(deadline) {
			t.Fatalf("connection %s still listed by CLIENT LIST", addr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWireCut: a cut closes the client's open connection and refuses new
// ones for the outage; afterwards the client connects again.
func TestWireCut(t *testing.T) {
	w, rdb, _ := wired(t, func(o *redis.Options) { o.MaxRetries = -1 })
	ctx := context.Background()
	if err := rdb.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	before := w.ClientAddrs()
	w.Cut(time.Second)
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING answered during the cut")
	}
	if err := rdb.Ping(ctx).Err(); err == nil {
		t.Fatal("PING on a new connection answered during the cut")
	}
	deadline := time.Now().Add(5 * time.Second)
	for rdb.Ping(ctx).Err() != nil {
		if time.Now().After(deadline) {
			t.Fatal("no PING answered 5 s after a 1 s cut")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := w.ClientAddrs(); len(after) != 1 || slices.Contains(before, after[0]) {
		t.Fatalf("client addrs after the cut %v (before %v): want one new connection", after, before)
	}
}
