package workloads_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"pgregory.net/rapid"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestPropertyMyLockIsAMutex is a property suite as a user writes it for
// their own lock (myLock, in example_test.go): rapid draws a workload and a
// plan, lockcheck runs it against a real redis-server and checks the
// history. On a violation rapid shrinks the plan and prints the smallest one
// it found, with a seed to replay it (-rapid.seed).
//
//	go test -run TestPropertyMyLockIsAMutex -rapid.checks 20 ./workloads/
func TestPropertyMyLockIsAMutex(t *testing.T) {
	// Each check is a real half-second run: draw 5 plans unless -rapid.checks says otherwise.
	if f := flag.Lookup("rapid.checks"); f != nil && f.Value.String() == f.DefValue {
		_ = f.Value.Set("5")
		t.Cleanup(func() { _ = f.Value.Set(f.DefValue) })
	}
	srv := redistest.Start(t, faults.ServerConfig{})
	reg, err := subject.NewRegistry(subject.Subject{
		Name: "my-lock",
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				return myMaker{rdb: rdb, ttl: o.WatchdogLease}, nil
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	dial := func(context.Context, int) (redis.UniversalClient, error) { return redis.NewClient(srv.Options()), nil }

	rapid.Check(t, func(rt *rapid.T) {
		w := rapid.SampledFrom([]string{"counter", "contended"}).Draw(rt, "workload")
		wl, err := workloads.LookupWorkload(w)
		if err != nil {
			rt.Fatal(err)
		}
		plan := wl.Gen.Draw(rt, "plan")
		plan.MaxReentry = 0 // myLock is not reentrant
		cfg := workloads.DefaultRunConfig()
		cfg.Subject, cfg.Workload, cfg.Plan = "my-lock", w, &plan
		cfg.Seed = rapid.Int64Range(1, 1<<20).Draw(rt, "seed")
		cfg.Duration = 500 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := workloads.Run(ctx, cfg, workloads.Deps{Registry: reg, Dial: dial})
		if err != nil {
			rt.Fatalf("run: %v", err)
		}
		if res.Report.Verdict != model.Valid {
			rt.Logf("%s", res.Report) // the explanation: which ops conflict, which faults overlap
			rt.Fatalf("verdict %s", res.Report.Verdict)
		}
	})
}
