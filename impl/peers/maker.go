package peers

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// maker is the impl.Maker shared by the adapters. It owns the renewals of
// its handles: Close stops them all and waits, without unlocking anything.
type maker struct {
	rdb       redis.UniversalClient
	newLocker func(m *maker, name, owner string) impl.Locker
	renewals  *impl.Renewals
	closed    atomic.Bool
}

func openMaker(rdb redis.UniversalClient, newLocker func(*maker, string, string) impl.Locker) (*maker, error) {
	if rdb == nil {
		return nil, errors.New("peers: nil redis client")
	}
	return &maker{rdb: rdb, newLocker: newLocker, renewals: impl.NewRenewals(impl.DefaultWatchdogTimeout)}, nil
}

func (m *maker) NewLocker(name, owner string) impl.Locker { return m.newLocker(m, name, owner) }

func (m *maker) Close() error {
	m.closed.Store(true)
	m.renewals.Close()
	return nil
}

// startRenewer extends one hold every lease/3 until stopped, each
// extension waiting at most that long for its reply. extend reports (true,
// nil) when extended, (false, nil) when the hold is gone, and an error when
// the outcome is unknown (retried at the next tick). The renewal ends, its
// Lost closed, when the hold is gone or no extension landed within a
// lease. It returns nil (no renewal) once the maker closed.
func (m *maker) startRenewer(lease time.Duration, extend func(ctx context.Context) (bool, error)) *impl.Renewal {
	every := max(lease/3, time.Millisecond)
	r, err := m.renewals.Start(time.Now(), impl.RenewalConfig{Lease: lease, Period: every, Retry: every, Wait: every, StopWhenLost: true}, extend)
	if err != nil {
		return nil
	}
	return r
}

// cleanupCtx is a fresh bounded context for releasing after ctx ended.
func cleanupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}
