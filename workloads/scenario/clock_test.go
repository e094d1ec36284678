package scenario

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// assertClocksHealed fails t when a clock of env is left off real time.
func assertClocksHealed(t *testing.T, env *Env) {
	t.Helper()
	var servers []*faults.Server
	if env.Server != nil {
		servers = append(servers, env.Server)
	}
	if env.Nodes != nil {
		servers = append(servers, env.Nodes.Servers...)
	}
	for _, s := range servers {
		if c := s.Clock(); c != nil && c.Offset() != 0 {
			t.Fatalf("redis-server %s clock left at %v", s.Addr(), c.Offset())
		}
	}
	for i, c := range env.ClientClocks {
		if c.Offset() != 0 {
			t.Fatalf("client %d clock left at %v", i, c.Offset())
		}
	}
	for i, c := range env.ClientShims {
		if c.Offset() != 0 {
			t.Fatalf("client %d shim clock left at %v", i, c.Offset())
		}
	}
}

// A forward jump of the server's clock past the lease is detected, and the
// written report blames the clock-jump window.
func TestClockJumpForwardDetected(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "clock-jump-forward", "reentrant", 1)
	expectMet(t, "clock-jump-forward", "reentrant", res)
	dir := t.TempDir()
	if _, err := results.WriteRun(dir, results.RunArtifacts{
		Subject: "reentrant", Workload: res.Plan.Workload, Seed: 1,
		History: res.History, Report: res.Report, Options: res.CheckOptions,
	}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "during clock-jump") {
		t.Fatalf("summary.md does not blame the clock-jump window:\n%s", md)
	}
}

// Kleppmann's clock counterexample is caught on the RedLock.
func TestRedlockClockJumpDetected(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	res := runScenario(t, "redlock-clock-jump", "redlock", 1)
	expectMet(t, "redlock-clock-jump", "redlock", res)
}

// WithClientClocks binds the fair subject of client i to client i's clock:
// the time its scripts get is skewed, as a waiter's deadline in Redis
// shows; and an external subject's driver processes get client i's shim.
func TestClientClocksReachSubjects(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	env, err := WithClientClocks(SingleServer(faults.PersistNone))(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	reg, err := env.registry(nil)
	if err != nil {
		t.Fatal(err)
	}
	const skew = time.Hour
	env.ClientClocks[1].Set(skew)
	fair, err := reg.Lookup("fair")
	if err != nil {
		t.Fatal(err)
	}
	mf, _ := fair.MakerFor(subject.OpenOptions{WatchdogLease: time.Second})
	var lockers []impl.Locker
	for i := range 2 {
		rdb, err := env.Dial(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		defer rdb.Close()
		m, err := mf(ctx, rdb)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		lockers = append(lockers, m.NewLocker("skewed", "o"))
		if i == 1 && env.clientEnv(rdb) == nil {
			t.Error("no driver environment for a dialled client")
		}
	}
	if err := lockers[0].Lock(ctx, 0); err != nil {
		t.Fatal(err)
	}
	direct := redis.NewClient(env.Server.Options())
	defer direct.Close()
	// Client 1 queues behind client 0 with its own time, then gives up.
	done := make(chan error, 1)
	go func() {
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		done <- lockers[1].Lock(c, 0)
	}()
	var deadline float64
	for deadline == 0 {
		if ctx.Err() != nil {
			t.Fatal("client 1 never queued")
		}
		zs, err := direct.ZRangeWithScores(ctx, impl.TimeoutName("skewed"), 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(zs) > 0 {
			deadline = zs[0].Score
		}
	}
	<-done
	if ahead := time.Duration(deadline-float64(time.Now().UnixMilli())) * time.Millisecond; ahead < skew {
		t.Errorf("client 1's queue deadline is %v ahead, want more than its %v skew", ahead, skew)
	}
	_ = lockers[0].Unlock(ctx)
}
