package workloads

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// slowStart wraps a Maker so that each owner's client takes startup to
// start, lazily on its first call, as an external driver's process does.
type slowStart struct {
	impl.Maker
	startup time.Duration
	mu      sync.Mutex
	started map[string]bool
}

// Ready: nothing starts ahead of use, but the Maker's clients take long to
// start (impl.Readier), so the runner starts its owners' before the clock.
func (s *slowStart) Ready(context.Context) error { return nil }

func (s *slowStart) NewLocker(name, owner string) impl.Locker {
	return &slowLocker{Locker: s.Maker.NewLocker(name, owner), s: s, owner: owner}
}

// start starts owner's client unless it started: a start cut short by
// ctx starts nothing, and the next call starts again from scratch.
func (s *slowStart) start(ctx context.Context, owner string) error {
	s.mu.Lock()
	started := s.started[owner]
	s.mu.Unlock()
	if started {
		return nil
	}
	t := time.NewTimer(s.startup)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
	}
	s.mu.Lock()
	s.started[owner] = true
	s.mu.Unlock()
	return nil
}

type slowLocker struct {
	impl.Locker
	s     *slowStart
	owner string
}

func (l *slowLocker) Prepare(ctx context.Context) error { return l.s.start(ctx, l.owner) }

func (l *slowLocker) Lock(ctx context.Context, lease time.Duration) error {
	if err := l.s.start(ctx, l.owner); err != nil {
		return err
	}
	return l.Locker.Lock(ctx, lease)
}

func (l *slowLocker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if err := l.s.start(ctx, l.owner); err != nil {
		return false, err
	}
	return l.Locker.TryLock(ctx, wait, lease)
}

// A client's start-up is not the lock's waiting: the runner readies each
// process's client (impl.Preparer) before its first op is timed. Counted as
// waiting, 700 ms of start-up on a free lock broke the 500 ms free-wait
// bound of hunt plans (node drivers, a JVM's second).
func TestStartupIsNotWaiting(t *testing.T) {
	s := startRedis(t)
	reg := slowStartRegistry(t, 700*time.Millisecond)
	res := run(t, s, RunConfig{Subject: "slow-start", Workload: "hunt", Seed: 11, Duration: 3 * time.Second}, Deps{Registry: reg})
	t.Log(summary(res))
	if r, _ := res.Report.Result(model.CheckLiveness); r.Verdict != model.Valid {
		t.Fatalf("start-up counted as waiting:\n%s", res.Report)
	}
}

// A start-up is bounded by the client's own start bound, not by an op's
// timeout: on a loaded CI machine a driver that took longer than the op
// timeout to start failed every first op of the run.
func TestStartupLongerThanAnOpTimeout(t *testing.T) {
	s := startRedis(t)
	reg := slowStartRegistry(t, 1200*time.Millisecond)
	res := run(t, s, RunConfig{Subject: "slow-start", Workload: DefaultWorkload, Seed: 11, Duration: 2 * time.Second, OpTimeout: time.Second}, Deps{Registry: reg})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 || res.Stats.Info > 0 {
		t.Fatalf("a start-up past the op timeout: %s\n%s", summary(res), res.Report)
	}
}

// The clients a run begins with are started before its clock starts: a
// start-up longer than the run and its stop timeout (Python drivers queued
// behind JVM starts on a loaded CI machine) once left a 2 s run without a
// single op, every first op cut off while its process started.
func TestStartupLongerThanTheRun(t *testing.T) {
	s := startRedis(t)
	reg := slowStartRegistry(t, 2500*time.Millisecond)
	res := run(t, s, RunConfig{Subject: "slow-start", Workload: DefaultWorkload, Seed: 11, Duration: time.Second, StopTimeout: 300 * time.Millisecond}, Deps{Registry: reg})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 {
		t.Fatalf("a start-up longer than the run: %s\n%s", summary(res), res.Report)
	}
}

// slowStartRegistry registers "slow-start": the reentrant lock whose every
// owner's client takes startup to start (slowStart).
func slowStartRegistry(t *testing.T, startup time.Duration) *subject.Registry {
	t.Helper()
	slow := subject.Subject{
		Name: "slow-start", Reentrant: true, NoWatchdog: false,
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			inner := impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
			return func(ctx context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				m, err := inner(ctx, rdb)
				if err != nil {
					return nil, err
				}
				return &slowStart{Maker: m, startup: startup, started: map[string]bool{}}, nil
			}
		},
	}
	reg, err := catalog.Subjects.With(slow)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// The harness's own stalls are recorded as hiccup windows, so that no
// checker blames the lock for them.
func TestHiccupsAreRecorded(t *testing.T) {
	var buf bytes.Buffer
	rec, err := model.NewRecorder(&buf, model.Header{})
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{rec: rec, base: time.Now()}
	hc := watchHiccups(r)
	// Stop the world longer than the threshold: every goroutine waits.
	deadline := time.Now().Add(5 * time.Second)
	for len(rec.History().Faults) == 0 && time.Now().Before(deadline) {
		stopTheWorld(3 * hiccupThreshold)
	}
	hc.stop()
	fs := rec.History().Faults
	if len(fs) == 0 {
		t.Fatal("no hiccup window recorded for a stop-the-world pause")
	}
	if f := fs[0]; f.Name != HiccupFault || f.End-f.Start < int64(hiccupThreshold) {
		t.Fatalf("hiccup window %+v", f)
	}
}

// stopTheWorld stops this whole process for d (SIGSTOP, and a child that
// sends SIGCONT), as a frozen VM or a starved machine would.
func stopTheWorld(d time.Duration) {
	cont := exec.Command("sh", "-c", fmt.Sprintf("sleep %.3f; kill -CONT %d", d.Seconds(), os.Getpid()))
	if cont.Start() != nil {
		return
	}
	_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	_ = cont.Wait()
}

// A redis-server that does not answer (here frozen) is a hiccup window too,
// and while it lasts info ops are held back as during a fault.
func TestStarvedRedisIsAHiccup(t *testing.T) {
	s := startRedis(t)
	rdb := redis.NewClient(s.Options())
	t.Cleanup(func() { _ = rdb.Close() })
	var buf bytes.Buffer
	rec, err := model.NewRecorder(&buf, model.Header{})
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{rec: rec, base: time.Now(), rdbs: []redis.UniversalClient{rdb}}
	r.tracker = newFaultTracker(r)
	hc := watchHiccups(r)
	defer hc.stop()
	if err := syscall.Kill(s.PID(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(r.tracker.names()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	held := len(r.tracker.names()) > 0
	time.Sleep(200 * time.Millisecond) // the server stays frozen a while
	if err := syscall.Kill(s.PID(), syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	for len(rec.History().Faults) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !held {
		t.Error("no fault was on while redis-server was frozen")
	}
	if fs := rec.History().Faults; len(fs) == 0 || fs[0].Name != HiccupFault || fs[0].End-fs[0].Start < int64(200*time.Millisecond) {
		t.Fatalf("hiccup windows %+v", fs)
	}
}
