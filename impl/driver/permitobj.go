package driver

import (
	"context"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// The request helpers of the permit objects' handles (Semaphore,
// PermitSemaphore, Latch), which own nothing and share one process.

// openAs is Open for Makers used as M: the maker interface of a permit
// object (semaphore, permit semaphore, latch), which *Maker implements.
func openAs[M any](opts Options) func(context.Context, redis.UniversalClient) (M, error) {
	open := Open(opts)
	return func(ctx context.Context, rdb redis.UniversalClient) (M, error) {
		m, err := open(ctx, rdb)
		if err != nil {
			var none M
			return none, err
		}
		return any(m).(M), nil
	}
}

// okOnly sends a request whose only answer is ok: fail is an error.
func (l *Locker) okOnly(ctx context.Context, req Request) (Reply, error) {
	rep, err := l.do(ctx, req)
	if err == nil && rep.Status != StatusOK {
		err = fmt.Errorf("driver %s: %s: %s", l.m.opts.name(), req.Op, rep.Status)
	}
	return rep, err
}

// okOrFail sends a request answered ok (true) or fail (false).
func (l *Locker) okOrFail(ctx context.Context, req Request) (bool, error) {
	rep, err := l.do(ctx, req)
	if err != nil {
		return false, err
	}
	return rep.Status == StatusOK, nil
}
