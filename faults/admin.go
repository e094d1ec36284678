package faults

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Admin injects faults through Redis commands, for deployments where
// lockcheck has no shell on the Redis machine (a managed or remote Redis):
// CLIENT PAUSE, DEBUG SLEEP and CLIENT KILL. Its connections go straight to
// Redis (never through a Proxy). Close releases them.
//
// DEBUG needs the server to allow it (Redis 7: enable-debug-command yes or
// local; lockcheck's own servers get it with ServerConfig.Args).
type Admin struct {
	opt *redis.Options
	rdb *redis.Client
}

// NewAdmin returns an Admin for the server opt reaches. opt is copied;
// hidden retries are turned off (MaxRetries -1) and ctx deadlines honoured.
func NewAdmin(opt *redis.Options) *Admin {
	o := *opt
	o.MaxRetries = -1
	o.ContextTimeoutEnabled = true
	o.PoolSize = 2
	return &Admin{opt: &o, rdb: redis.NewClient(&o)}
}

// Close closes the Admin's connections.
func (a *Admin) Close() error { return a.rdb.Close() }

// PauseMode is the CLIENT PAUSE mode.
type PauseMode string

// CLIENT PAUSE modes.
const (
	// PauseAll holds every command of every normal client.
	PauseAll PauseMode = "ALL"
	// PauseWrite holds writes (and EVAL of scripts that may write) but
	// serves reads.
	PauseWrite PauseMode = "WRITE"
)

// ClientPause returns a fault that pauses clients for d with CLIENT PAUSE
// <d> <mode>. Held commands are not failed: they wait and run after the
// pause (clients see latency and, past their timeout, indeterminate errors).
// The pause ends by itself after d even if Stop is never called.
//
// Stop depends on the mode. PauseWrite: Stop sends CLIENT UNPAUSE, which
// ends the pause at once. PauseAll: Redis 7.0 holds CLIENT UNPAUSE itself
// until the pause is over (measured on 7.0.15), so an ALL pause always lasts
// its full d; Stop waits for its end (bounded by ctx). Schedule it with a
// step Duration equal to d.
func (a *Admin) ClientPause(mode PauseMode, d time.Duration) Fault {
	var mu sync.Mutex
	var until time.Time // when the running pause ends by itself; zero if none
	return &fault{
		name: "redis-client-pause-" + strings.ToLower(string(mode)), target: a.opt.Addr,
		start: func(ctx context.Context) error {
			ms := strconv.FormatInt(d.Milliseconds(), 10)
			mu.Lock()
			until = time.Now().Add(d)
			mu.Unlock()
			if err := a.rdb.Do(ctx, "CLIENT", "PAUSE", ms, string(mode)).Err(); err != nil {
				return fmt.Errorf("CLIENT PAUSE %s %s on %s: %w", ms, mode, a.opt.Addr, err)
			}
			return nil
		},
		stop: func(ctx context.Context) error {
			mu.Lock()
			end := until
			until = time.Time{}
			mu.Unlock()
			if end.IsZero() {
				return nil
			}
			if mode == PauseAll {
				if !sleepUntil(ctx, end) {
					return fmt.Errorf("wait for CLIENT PAUSE ALL on %s to end: %w", a.opt.Addr, ctx.Err())
				}
				return nil
			}
			if err := a.rdb.Do(ctx, "CLIENT", "UNPAUSE").Err(); err != nil {
				return fmt.Errorf("CLIENT UNPAUSE on %s: %w", a.opt.Addr, err)
			}
			return nil
		},
	}
}

// ClientKill returns a fault that closes, at Start, every connection of the
// given client type ("normal", "pubsub", "replica", "master") except the
// Admin's own (CLIENT KILL TYPE <typ> SKIPME yes). Clients see EOF or a reset
// and reconnect; pub/sub subscribers lose messages published while they
// reconnect. Stop does nothing.
func (a *Admin) ClientKill(typ string) Fault {
	return &fault{
		name: "redis-client-kill-" + typ, target: a.opt.Addr,
		start: func(ctx context.Context) error {
			if err := a.rdb.Do(ctx, "CLIENT", "KILL", "TYPE", typ, "SKIPME", "yes").Err(); err != nil {
				return fmt.Errorf("CLIENT KILL TYPE %s on %s: %w", typ, a.opt.Addr, err)
			}
			return nil
		},
		stop: noop,
	}
}

// DebugSleep returns a fault that blocks the whole server for d with DEBUG
// SLEEP: like a SIGSTOP pause (requests wait, then are served) but made from
// a client, and of a fixed length that Stop cannot shorten. Start sends the
// command on its own connection and returns at once; Stop waits until the
// sleep is over (bounded by ctx). The command's connection is closed when it
// returns.
func (a *Admin) DebugSleep(d time.Duration) Fault {
	ds := &debugSleep{a: a, d: d}
	return &fault{name: "redis-debug-sleep", target: a.opt.Addr, start: ds.start, stop: ds.stop}
}

type debugSleep struct {
	a *Admin
	d time.Duration

	mu   sync.Mutex
	done chan struct{} // closed when the running sleep has returned; nil if none
	err  error         // the sleep's error, valid after done is closed
}

func (s *debugSleep) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil {
		return fmt.Errorf("DEBUG SLEEP on %s: already running", s.a.opt.Addr)
	}
	o := *s.a.opt
	o.PoolSize = 1
	o.ReadTimeout = s.d + o.DialTimeout + 5*time.Second // the reply comes after d
	rdb := redis.NewClient(&o)
	// Bounded by ReadTimeout, not by ctx: ctx may end right after Start.
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), o.ReadTimeout+o.DialTimeout)
	done := make(chan struct{})
	s.done = done
	go func() {
		defer close(done)
		defer cancel()
		defer rdb.Close()
		secs := strconv.FormatFloat(s.d.Seconds(), 'f', 3, 64)
		if err := rdb.Do(bg, "DEBUG", "SLEEP", secs).Err(); err != nil {
			s.mu.Lock()
			s.err = fmt.Errorf("DEBUG SLEEP %s on %s: %w", secs, s.a.opt.Addr, err)
			s.mu.Unlock()
		}
	}()
	return nil
}

func (s *debugSleep) stop(ctx context.Context) error {
	s.mu.Lock()
	done := s.done
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("wait for DEBUG SLEEP on %s: %w", s.a.opt.Addr, ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.err
	s.done, s.err = nil, nil
	return err
}
