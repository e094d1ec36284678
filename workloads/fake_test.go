package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// memLocks is an in-process lease lock table shared by every client of a
// fake subject: the runner drives it as it drives a lock over Redis, with no
// Redis at all. broken makes every acquire succeed (no exclusion).
type memLocks struct {
	mu     sync.Mutex
	held   map[string]*memHold
	broken bool
	lease  time.Duration // of holds asked with lease <= 0
}

// memHold is one lock's holder; freed is closed when it lets go.
type memHold struct {
	owner string
	until time.Time
	freed chan struct{}
}

// fakeSubject is a subject whose locks live in memory: correct, or broken.
func fakeSubject(name string, broken bool) subject.Subject {
	return subject.Subject{
		Name: name, Kind: subject.KindUser, NoWatchdog: true,
		Doc: "an in-process lease lock (test fake)",
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			locks := &memLocks{held: map[string]*memHold{}, broken: broken, lease: o.WatchdogLease}
			return func(context.Context, redis.UniversalClient) (impl.Maker, error) { return locks, nil }
		},
	}
}

func (m *memLocks) NewLocker(name, owner string) impl.Locker {
	return &memLocker{m: m, name: name, owner: owner}
}

func (m *memLocks) Close() error { return nil }

type memLocker struct {
	m           *memLocks
	name, owner string
}

// try takes the lock if it is free (or its holder's lease ran out); else
// it returns what to wait on: the holder's release or its lease's end.
func (l *memLocker) try(lease time.Duration) (bool, <-chan struct{}, time.Duration) {
	m := l.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if lease <= 0 {
		lease = m.lease
	}
	now := time.Now()
	if h := m.held[l.name]; h != nil && now.Before(h.until) && !m.broken {
		return false, h.freed, h.until.Sub(now)
	}
	m.held[l.name] = &memHold{owner: l.owner, until: now.Add(lease), freed: make(chan struct{})}
	return true, nil, 0
}

func (l *memLocker) wait(ctx context.Context, wait, lease time.Duration) (bool, error) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for {
		ok, freed, left := l.try(lease)
		if ok {
			return true, nil
		}
		expiry := time.NewTimer(left)
		select {
		case <-ctx.Done():
			expiry.Stop()
			return false, errors.Join(impl.ErrNotObtained, ctx.Err())
		case <-deadline.C:
			expiry.Stop()
			return false, nil
		case <-freed:
		case <-expiry.C:
		}
		expiry.Stop()
	}
}

func (l *memLocker) Lock(ctx context.Context, lease time.Duration) error {
	_, err := l.wait(ctx, time.Duration(1<<62), lease)
	return err
}

func (l *memLocker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if wait <= 0 {
		ok, _, _ := l.try(lease)
		return ok, nil
	}
	return l.wait(ctx, wait, lease)
}

func (l *memLocker) Unlock(context.Context) error {
	m := l.m
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.held[l.name]
	if h == nil || h.owner != l.owner || !time.Now().Before(h.until) {
		return fmt.Errorf("%s by %s: %w", l.name, l.owner, impl.ErrNotOwner)
	}
	delete(m.held, l.name)
	close(h.freed)
	return nil
}

// errNoRedis is what a fake run's clients answer: the fake subject needs
// no Redis, and the runner's own probe (PING) must not need one either.
var errNoRedis = errors.New("no Redis in this test")

// noRedis dials clients that never reach a server.
func noRedis(context.Context, int) (redis.UniversalClient, error) {
	return redis.NewClient(&redis.Options{
		MaxRetries: -1, DialerRetries: 1,
		Dialer: func(context.Context, string, string) (net.Conn, error) { return nil, errNoRedis },
	}), nil
}

// TestRunnerWithFakeSubjects: the runner drives a subject registered in a
// registry of the test's own, with no Redis and none of the shipped locks:
// an in-process lease lock is valid, and the same lock without exclusion is
// caught by the protected counter.
func TestRunnerWithFakeSubjects(t *testing.T) {
	reg, err := subject.NewRegistry(fakeSubject("mem", false), fakeSubject("mem-broken", true))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		want model.Verdict
	}{{"mem", model.Valid}, {"mem-broken", model.Invalid}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := RunConfig{Subject: tc.name, Workload: "counter", Seed: 7, Duration: time.Second}
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			res, err := Run(ctx, cfg, Deps{Registry: reg, Dial: noRedis})
			if err != nil {
				t.Fatal(err)
			}
			t.Log(summary(res))
			if res.Report.Verdict != tc.want || res.Stats.Granted == 0 {
				t.Fatalf("%s: want %s with grants\n%s", summary(res), tc.want, res.Report)
			}
			if tc.want == model.Invalid {
				if got, ok := res.Report.Result(model.CheckMutualExclusion); !ok || got.Verdict != model.Invalid {
					t.Fatalf("mutual exclusion: %+v, want invalid", got)
				}
			}
		})
	}
}

// TestRunnerNeedsARegistry: a run without a registry names what is missing.
func TestRunnerNeedsARegistry(t *testing.T) {
	_, err := Run(t.Context(), RunConfig{Subject: "mem", Workload: "counter", Duration: time.Second}, Deps{Dial: noRedis})
	if !errors.Is(err, ErrNoRegistry) {
		t.Fatalf("Run without a registry: %v, want ErrNoRegistry", err)
	}
}
