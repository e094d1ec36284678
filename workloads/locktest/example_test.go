package locktest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/locktest"
)

// TestSetNXLock is a user's whole test: the lock below through every
// must-pass scenario that fits it, within the budget.
func TestSetNXLock(t *testing.T) {
	locktest.Run(t, locktest.Lock{
		Name: "setnx",
		New: func(rdb redis.UniversalClient, lease time.Duration) (impl.Maker, error) {
			return setNXMaker{rdb: rdb, lease: lease}, nil
		},
	})
}

// setNXLock is a user's lock: SET NX PX to acquire (polling every 2 ms), a
// compare-and-delete script to release. It has a fixed lease.
type setNXLock struct {
	rdb          redis.UniversalClient
	key, token   string
	defaultLease time.Duration
}

var release = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

func (l *setNXLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	if lease <= 0 {
		lease = l.defaultLease
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

func (l *setNXLock) Lock(ctx context.Context, lease time.Duration) error {
	for {
		ok, err := l.TryLock(ctx, time.Hour, lease)
		if err != nil || ok {
			return err
		}
	}
}

func (l *setNXLock) Unlock(ctx context.Context) error {
	n, err := release.Run(ctx, l.rdb, []string{l.key}, l.token).Int()
	if err != nil {
		return err
	}
	if n == 0 {
		return impl.ErrNotOwner
	}
	return nil
}

// setNXMaker makes one handle per (lock name, owner).
type setNXMaker struct {
	rdb   redis.UniversalClient
	lease time.Duration
}

func (m setNXMaker) NewLocker(name, owner string) impl.Locker {
	return &setNXLock{rdb: m.rdb, key: name, token: owner, defaultLease: m.lease}
}

func (setNXMaker) Close() error { return nil }
