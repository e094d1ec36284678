package impl

import (
	"errors"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

var _ Maker = (*Client)(nil)

// The registry's MakerFuncs open Clients whose handles carry the advertised
// capabilities, and Close leaves holds to expire (as a crash would).
func TestMakers(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	rdb := redistest.Client(t, s)
	ctx := ctxT(t)
	for name, mf := range map[string]MakerFunc{
		"reentrant": ReentrantMaker(WithWatchdogTimeout(testWatchdog)),
		"fenced":    FencedMaker(WithWatchdogTimeout(testWatchdog)),
	} {
		t.Run(name, func(t *testing.T) {
			m, err := mf(ctx, rdb)
			if err != nil {
				t.Fatal(err)
			}
			l := m.NewLocker("maker-"+name, "p1")
			if _, ok := l.(LeaseWatcher); !ok {
				t.Error("handle is not a LeaseWatcher")
			}
			f, fenced := l.(Fenced)
			if fenced != (name == "fenced") {
				t.Errorf("Fenced capability = %v", fenced)
			}
			if err := l.Lock(ctx, 0); err != nil {
				t.Fatal(err)
			}
			if fenced && f.Token() != 1 {
				t.Errorf("Token = %d; want 1", f.Token())
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			eventually(t, testWatchdog+time.Second, "hold expires after Close", func() bool {
				n, _ := rdb.Exists(ctx, "maker-"+name).Result()
				return n == 0
			})
			if err := l.Unlock(ctx); !errors.Is(err, ErrClosed) {
				t.Errorf("Unlock after Close = %v; want ErrClosed", err)
			}
		})
	}
}

// Abandon stops renewal without unlocking: the hold expires within the
// watchdog timeout, Lost closes, and the handle holds nothing.
func TestReentrantAbandon(t *testing.T) {
	s := redistest.Start(t, faults.ServerConfig{})
	c, rdb := newTestClient(t, s)
	ctx := ctxT(t)
	l := c.Reentrant("abandon", "t1")
	if err := l.Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	lost := l.Lost()
	l.Abandon()
	select {
	case <-lost:
	default:
		t.Fatal("Lost not closed by Abandon")
	}
	if l.Lost() != nil {
		t.Fatal("Lost not nil after Abandon")
	}
	if n, _ := rdb.Exists(ctx, "abandon").Result(); n != 1 {
		t.Fatal("Abandon unlocked")
	}
	eventually(t, testWatchdog+time.Second, "abandoned hold expires", func() bool {
		n, _ := rdb.Exists(ctx, "abandon").Result()
		return n == 0
	})
}
