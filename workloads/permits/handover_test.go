package permits

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
)

// memSems are in-memory counting semaphores shared by the clients of one
// test run. A waiter waits for a release's wake-up; when lossy, a waiter
// that found no permit misses the wake-ups of releases that come within
// window of its call (as a listener registered after the message came)
// and sleeps out its wait.
type memSems struct {
	mu      sync.Mutex
	permits map[string]int
	set     map[string]bool
	wake    map[string]chan struct{}
	lossy   bool
	window  time.Duration
}

func newMemSems(lossy bool) *memSems {
	return &memSems{permits: map[string]int{}, set: map[string]bool{}, wake: map[string]chan struct{}{}, lossy: lossy, window: 2 * time.Millisecond}
}

// maker is a SemaphoreMaker on s.
type memMaker struct{ s *memSems }

func (m memMaker) NewSemaphore(name string) impl.Semaphore { return &memSem{m.s, name} }
func (m memMaker) Close() error                            { return nil }

type memSem struct {
	s    *memSems
	name string
}

// take takes n permits if there are, else returns the channel the next
// change closes.
func (m *memSem) take(n int) (bool, chan struct{}) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if m.s.permits[m.name] >= n {
		m.s.permits[m.name] -= n
		return true, nil
	}
	if m.s.wake[m.name] == nil {
		m.s.wake[m.name] = make(chan struct{})
	}
	return false, m.s.wake[m.name]
}

func (m *memSem) change(n int) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.permits[m.name] += n
	if c := m.s.wake[m.name]; c != nil {
		close(c)
		m.s.wake[m.name] = nil
	}
}

func (m *memSem) TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	called := time.Now()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		ok, woken := m.take(n)
		if ok {
			return true, nil
		}
		select {
		case <-woken:
			if m.s.lossy && time.Since(called) < m.s.window {
				<-timer.C // the wake-up came before the listener: missed
				return false, nil
			}
		case <-timer.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

func (m *memSem) Acquire(ctx context.Context, n int) error {
	_, err := m.TryAcquire(ctx, n, time.Hour)
	return err
}
func (m *memSem) Release(_ context.Context, n int) error    { m.change(n); return nil }
func (m *memSem) AddPermits(_ context.Context, n int) error { m.change(n); return nil }
func (m *memSem) TrySetPermits(_ context.Context, n int) (bool, error) {
	m.s.mu.Lock()
	was := m.s.set[m.name]
	m.s.set[m.name] = true
	m.s.mu.Unlock()
	if was {
		return false, nil
	}
	m.change(n)
	return true, nil
}
func (m *memSem) Available(context.Context) (int, error) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	return m.s.permits[m.name], nil
}

// memSubject is a subject on sems.
func memSubject(sems *memSems) Subject {
	return Subject{Name: "mem", Open: func(context.Context, redis.UniversalClient) (impl.SemaphoreMaker, error) { return memMaker{sems}, nil }}
}

// runMem runs plan on subj, whose semaphores live in memory, and returns
// the history, validated.
func runMem(t *testing.T, subj Subject, plan Plan) *model.History {
	t.Helper()
	// The memory semaphores need no Redis: the clients are never used
	// but by the best-effort cleanup, which fails at once.
	dial := func(int) (redis.UniversalClient, error) {
		return redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}), nil
	}
	h, err := Run(t.Context(), dial, subj, plan, "handover-test", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	return h
}

// runHandovers runs the handover round alone (no other rounds) on sems.
func runHandovers(t *testing.T, sems *memSems, seed int64) model.Report {
	t.Helper()
	plan := DefaultPlan(seed)
	plan.Rounds, plan.Handovers, plan.Wait = 0, 700*time.Millisecond, 1300*time.Millisecond
	return model.Check(runMem(t, memSubject(sems), plan), Options())
}

// lostMaker makes semaphores whose acquires lose their reply (an error:
// the op is info and retires its process).
type lostMaker struct{ memMaker }

func (m lostMaker) NewSemaphore(name string) impl.Semaphore {
	return lostSem{m.memMaker.NewSemaphore(name)}
}

type lostSem struct{ impl.Semaphore }

func (lostSem) TryAcquire(context.Context, int, time.Duration) (bool, error) {
	return false, errors.New("reply lost")
}

// A worker whose calls get no answer goes on under a fresh process id
// after each info op (Jepsen's rule), after a pause: no process calls
// again after an info op of its own, the worker is not spinning, and in
// the handovers its pair stops at its first unanswered acquire while the
// other pair hands over.
func TestInfoOpsRenewTheProcess(t *testing.T) {
	sems := newMemSems(false)
	mem := memSubject(sems)
	lost := Subject{Name: "lost", Open: func(context.Context, redis.UniversalClient) (impl.SemaphoreMaker, error) {
		return lostMaker{memMaker{sems}}, nil
	}}
	subj := Subject{Name: "mem+lost", Parts: []Subject{mem, lost, mem, mem, mem, mem}}
	plan := DefaultPlan(1)
	plan.Rounds, plan.SetDelay, plan.Round, plan.Handovers = 1, 200*time.Millisecond, 300*time.Millisecond, 300*time.Millisecond
	h := runMem(t, subj, plan)
	pairs, infos, ended := map[string]int{}, 0, map[int]bool{}
	for _, o := range h.Ops {
		if ended[o.Process] {
			t.Fatalf("process %d called %s after an info op of its own", o.Process, o.Kind)
		}
		if o.Outcome == model.Info {
			infos++
			ended[o.Process] = true
		}
		if strings.Contains(o.Lock, "-handover") && o.Process > 0 {
			pairs[o.Lock[strings.LastIndex(o.Lock, "-")+1:]]++
		}
	}
	// The lost worker calls through its round (200 + 300 ms) and the
	// handovers' first acquire, one call per infoBackoff at most.
	if limit := int((800*time.Millisecond)/infoBackoff) + 2; infos < 2 || infos > limit {
		t.Errorf("%d info ops, want 2..%d: the lost worker goes on, one call per backoff", infos, limit)
	}
	if pairs["handover0"] != 1 || pairs["handover1"] == 0 {
		t.Fatalf("handover ops by pair: %v; want the lost worker's pair to stop at its first acquire, the other's to hand over", pairs)
	}
}

// The handover round is valid on a semaphore whose waiters are woken by
// every release, and catches, by liveness, one whose waiters miss the
// releases that come just after their call: the offsets drawn from the
// seed land releases in that window.
func TestHandoverRound(t *testing.T) {
	if rep := runHandovers(t, newMemSems(false), 1); rep.Verdict != model.Valid {
		t.Fatalf("a semaphore that wakes its waiters: %s", rep)
	}
	rep := runHandovers(t, newMemSems(true), 1)
	if res, _ := rep.Result(model.CheckLiveness); res.Verdict != model.Invalid {
		t.Fatalf("a semaphore whose waiters miss early releases: liveness %s\n%s", res.Verdict, rep)
	}
}
