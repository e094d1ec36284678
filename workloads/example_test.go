package workloads_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// myLock is a user's own lock, written outside lockcheck: SET NX PX to
// acquire (polling every 2 ms), a compare-and-delete script to release.
type myLock struct {
	rdb        redis.UniversalClient
	key, token string
	defaultTTL time.Duration
}

var release = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

func (l *myLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if lease <= 0 {
		lease = l.defaultTTL
	}
	deadline := time.Now().Add(wait)
	for {
		ok, err := l.rdb.SetNX(ctx, l.key, l.token, lease).Result()
		if err != nil || ok {
			return ok, err
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, errors.Join(impl.ErrNotObtained, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}

func (l *myLock) Lock(ctx context.Context, lease time.Duration) error {
	for {
		ok, err := l.TryLock(ctx, time.Hour, lease)
		if err != nil || ok {
			return err
		}
	}
}

func (l *myLock) Unlock(ctx context.Context) error {
	n, err := release.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return impl.ErrNotOwner
	}
	return nil
}

// myMaker makes one handle per (lock name, owner).
type myMaker struct {
	rdb redis.UniversalClient
	ttl time.Duration
}

func (m myMaker) NewLocker(name, owner string) impl.Locker {
	return &myLock{rdb: m.rdb, key: name, token: owner, defaultTTL: m.ttl}
}

func (myMaker) Close() error { return nil }

// Register your own lock as a subject and run a workload against it: the
// runner drives it with concurrent processes, records the history and checks
// it. In a program of your own, register it in catalog.Subjects (the
// registry lockcheck's commands use) instead of a private registry.
func Example_registerYourOwnLock() {
	ctx := context.Background()
	srv, err := faults.StartServer(ctx, faults.ServerConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	reg, err := subject.NewRegistry(subject.Subject{
		Name: "my-lock",
		Doc:  "SET NX PX, polling, compare-and-delete",
		// Configure receives the run's settings; the lease of a hold asked
		// with lease <= 0 must be the run's WatchdogLease.
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			return func(_ context.Context, rdb redis.UniversalClient) (impl.Maker, error) {
				return myMaker{rdb: rdb, ttl: o.WatchdogLease}, nil
			}
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg := workloads.DefaultRunConfig()
	cfg.Subject, cfg.Workload, cfg.Duration = "my-lock", "counter", 1500*time.Millisecond
	res, err := workloads.Run(ctx, cfg, workloads.Deps{
		Registry: reg,
		Dial: func(context.Context, int) (redis.UniversalClient, error) {
			return redis.NewClient(srv.Options()), nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verdict:", res.Report.Verdict)
	// Output: verdict: valid
}
