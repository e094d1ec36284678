package driver

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// openFake opens a Maker on the fake driver in mode. The go-redis client is
// never dialled: it only carries the address the driver is told.
func openFake(t testing.TB, opts Options) *Maker {
	t.Helper()
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:9", Password: "s3cret"})
	t.Cleanup(func() { _ = rdb.Close() })
	m, err := Open(opts)(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m.(*Maker)
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestDriverLockUnlock(t *testing.T) {
	m := openFake(t, fakeOptions("ok"))
	l := m.NewLocker("l0", "p1")
	ctx := ctxFor(t, 5*time.Second)
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got, err := l.TryLock(ctx, 0, time.Second); err != nil || !got {
		t.Fatalf("reentry: %v %v", got, err)
	}
	if n, err := l.(impl.HoldCounter).HoldCount(ctx); err != nil || n != 2 {
		t.Fatalf("hold count %d %v, want 2", n, err)
	}
	for range 2 {
		if err := l.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Unlock(ctx); !errors.Is(err, impl.ErrNotOwner) {
		t.Fatalf("unlock of nothing: %v, want ErrNotOwner", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := l.Lock(ctx, 0); !errors.Is(err, ErrDriver) && !errors.Is(err, impl.ErrClosed) {
		t.Fatalf("lock after close: %v", err)
	}
}

// TestDriverFailures: a driver that hangs, crashes, prints garbage or a
// reply to another request ends the op with ErrDriver within the request's
// timeout plus the grace, is killed, and answers nothing more.
func TestDriverFailures(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"hang", "no reply within"},
		{"crash", "segfault in lock"},
		{"garbage", "garbage on stdout"},
		{"wrongid", "reply to request 9"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			m := openFake(t, fakeOptions(tc.mode))
			// Started first: a loaded machine once took the lock's 300 ms
			// to start the process ("no banner").
			if _, err := m.proc(ctxFor(t, 5*time.Second), "p1"); err != nil {
				t.Fatal(err)
			}
			l := m.NewLocker("l0", "p1")
			start := time.Now()
			err := l.Lock(ctxFor(t, 300*time.Millisecond), 0)
			if !errors.Is(err, ErrDriver) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("lock: %v, want ErrDriver with %q", err, tc.want)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Fatalf("lock took %v", d)
			}
			p := m.running("p1")
			assertGone(t, p.cmd.Process.Pid)
			if err2 := l.Unlock(ctxFor(t, time.Second)); !errors.Is(err2, ErrDriver) {
				t.Fatalf("unlock after failure: %v, want the driver's error", err2)
			}
			// A new owner gets a new driver process.
			if p2, err := m.proc(ctxFor(t, 2*time.Second), "p2"); err != nil || p2 == p {
				t.Fatalf("replacement: %v", err)
			}
		})
	}
}

func TestDriverStartFailures(t *testing.T) {
	for _, tc := range []struct {
		mode, want string
		caps       []string
	}{
		{"early", "cannot find my library", nil},
		{"oldproto", "speaks protocol 99", nil},
		{"nocaps", "the subject needs [reentrant]", []string{CapReentrant}},
		{"silent", "no banner", nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			o := fakeOptions(tc.mode)
			o.Capabilities = tc.caps
			o.StartTimeout = 500 * time.Millisecond
			m := openFake(t, o)
			err := m.NewLocker("l0", "p1").Lock(ctxFor(t, 5*time.Second), 0)
			if !errors.Is(err, ErrDriver) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("lock: %v, want ErrDriver with %q", err, tc.want)
			}
		})
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:9"})
	defer rdb.Close()
	if _, err := Open(Options{})(context.Background(), rdb); err == nil {
		t.Fatal("no command: want an error")
	}
}

func TestDriverRedisErrorReply(t *testing.T) {
	m := openFake(t, fakeOptions("redis"))
	err := m.NewLocker("l0", "p1").Lock(ctxFor(t, 5*time.Second), 0)
	var rerr redis.Error
	if !errors.As(err, &rerr) || errors.Is(err, ErrDriver) {
		t.Fatalf("lock: %v, want a redis.Error that is not a driver failure", err)
	}
}

// TestDriverFencedOkWithoutToken: a fenced driver's ok without a token ends
// the op in an error (outcome unknown), though the driver would answer a
// token op: lockcheck never fills a grant's token in afterwards.
func TestDriverFencedOkWithoutToken(t *testing.T) {
	opts := fakeOptions("notoken")
	opts.Capabilities = []string{CapFenced}
	m := openFake(t, opts)
	l := m.NewLocker("l0", "p1")
	if err := l.Lock(ctxFor(t, 5*time.Second), 0); err == nil || !strings.Contains(err.Error(), "without the fencing token") {
		t.Fatalf("lock: %v, want an error naming the missing token", err)
	}
	if ok, err := l.TryLock(ctxFor(t, 5*time.Second), 0, 0); err == nil {
		t.Fatalf("trylock: %v %v, want an error", ok, err)
	}
}

// TestDriverCancel: cancelling the ctx (a crashed client) ends the wait at
// once, before the deadline.
func TestDriverCancel(t *testing.T) {
	m := openFake(t, fakeOptions("hang"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	if err := m.NewLocker("l0", "p1").Lock(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("lock: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancel took %v", d)
	}
}

func TestDriverFreezeAbandon(t *testing.T) {
	m := openFake(t, fakeOptions("ok"))
	l := m.NewLocker("l0", "p1")
	ctx := ctxFor(t, 5*time.Second)
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	pid := m.running("p1").cmd.Process.Pid
	fz := l.(impl.Freezer)
	if err := fz.Freeze(); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, "T")
	if err := fz.Thaw(); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, "S", "R")
	if err := l.Unlock(ctx); err != nil {
		t.Fatalf("unlock after thaw: %v", err)
	}
	l.(impl.Abandoner).Abandon()
	assertGone(t, pid)
	if err := l.Lock(ctx, 0); !errors.Is(err, ErrDriver) {
		t.Fatalf("lock after abandon: %v, want ErrDriver", err)
	}
}

// TestDriverCloseKillsStubborn: a driver that does not exit at the end of
// its input is killed ExitWait later, and Close says so.
func TestDriverCloseKillsStubborn(t *testing.T) {
	m := openFake(t, fakeOptions("noexit"))
	if err := m.NewLocker("l0", "p1").Lock(ctxFor(t, 5*time.Second), 0); err != nil {
		t.Fatal(err)
	}
	pid := m.running("p1").cmd.Process.Pid
	if err := m.Close(); err == nil || !strings.Contains(err.Error(), "did not exit") {
		t.Fatalf("close: %v", err)
	}
	assertGone(t, pid)
}

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node driver.js`:                {"node", "driver.js"},
		`  python3  -u "my driver.py" `: {"python3", "-u", "my driver.py"},
		`sh -c 'echo "hi there"'`:       {"sh", "-c", `echo "hi there"`},
		`a\ b c`:                        {"a b", "c"},
		`x "a\"b\\c\d"`:                 {"x", `a"b\c\d`},
	} {
		got, err := SplitCommand(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `  `, `node "unterminated`, `x 'y`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): want an error", bad)
		}
	}
}

// procState returns the state letter of pid from /proc ("" when gone or a
// zombie).
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	if st := s[i+2 : i+3]; st != "Z" {
		return st
	}
	return ""
}

func waitState(t *testing.T, pid int, want ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		st := procState(pid)
		for _, w := range want {
			if st == w {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d in state %q, want %v", pid, st, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func assertGone(t *testing.T, pid int) {
	t.Helper()
	waitState(t, pid, "")
	if err := syscall.Kill(pid, 0); err == nil {
		t.Fatalf("process %d still exists", pid)
	}
}

func TestProbe(t *testing.T) {
	b, err := Probe(context.Background(), fakeOptions("ok"))
	if err != nil || b.Driver != "fake" || !b.Has(CapReentrant) || b.Has(CapFair) {
		t.Fatalf("Probe = %+v, %v", b, err)
	}
	o := fakeOptions("early")
	if _, err := Probe(context.Background(), o); !errors.Is(err, ErrDriver) || !strings.Contains(err.Error(), "cannot find my library") {
		t.Fatalf("Probe of a driver that exits early: %v", err)
	}
	o.Command = []string{"/nonexistent/driver"}
	if _, err := Probe(context.Background(), o); !errors.Is(err, ErrDriver) {
		t.Fatalf("Probe of a missing program: %v", err)
	}
}
