package workloads

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// stuckMaker's lockers block in every call until their ctx ends, as a lock
// client talking to a frozen Redis does.
type stuckMaker struct{}

func (stuckMaker) NewLocker(string, string) impl.Locker { return stuckLocker{} }
func (stuckMaker) Close() error                         { return nil }

type stuckLocker struct{}

func (stuckLocker) Lock(ctx context.Context, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

func (stuckLocker) TryLock(ctx context.Context, _, _ time.Duration) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}

func (stuckLocker) Unlock(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// An interrupted run stops within about InterruptStopTimeout even when its
// processes are blocked on Redis and StopTimeout is long (it used to wait
// the whole StopTimeout).
func TestInterruptedRunStopsFast(t *testing.T) {
	reg, err := subject.NewRegistry(subject.Subject{Name: "stuck", Kind: subject.KindUser, Open: func(context.Context, redis.UniversalClient) (impl.Maker, error) {
		return stuckMaker{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultRunConfig()
	cfg.Subject, cfg.Duration, cfg.StopTimeout = "stuck", time.Minute, 20*time.Second
	cfg.OpTimeout = time.Minute
	ctx, cancel := context.WithCancel(t.Context())
	timer := time.AfterFunc(300*time.Millisecond, cancel)
	defer timer.Stop()
	start := time.Now()
	res, err := Run(ctx, cfg, Deps{Registry: reg, Dial: func(context.Context, int) (redis.UniversalClient, error) {
		return redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}), nil
	}})
	took := time.Since(start)
	if res == nil {
		t.Fatalf("Run: no result: %v", err)
	}
	if took > 300*time.Millisecond+InterruptStopTimeout+time.Second {
		t.Fatalf("an interrupted run took %v to stop (StopTimeout %v)", took, cfg.StopTimeout)
	}
}

// The check after a run stops when the run's ctx ends during it; after a
// run that ctx already interrupted, it is bounded by InterruptCheckTimeout
// (a signal must not leave the prefix's check running for a minute).
func TestCheckContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cctx, ccancel := checkContext(ctx)
	defer ccancel()
	if _, ok := cctx.Deadline(); ok || cctx.Err() != nil {
		t.Fatal("a finished run's check has a deadline of its own")
	}
	cancel()
	if cctx.Err() == nil {
		t.Fatal("cancelling the run's ctx does not stop its check")
	}
	pctx, pcancel := checkContext(ctx)
	defer pcancel()
	if d, ok := pctx.Deadline(); !ok || time.Until(d) > InterruptCheckTimeout || pctx.Err() != nil {
		t.Fatalf("an interrupted run's check: deadline %v (%v), err %v", d, ok, pctx.Err())
	}
}
