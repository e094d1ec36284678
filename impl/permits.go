package impl

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// The permit objects of Redisson's lock family (RSemaphore,
// RPermitExpirableSemaphore, RCountDownLatch) have no owner: any client may
// release a semaphore's permits or count a latch down. They do not meet
// Locker, whose Unlock refuses a non-owner and whose holds run out with a
// lease; these are their own contracts, the smallest the harness needs.
//
// RSemaphore with one permit is no Locker: its release succeeds for anyone
// (a double release makes two permits) and a crashed holder's permit never
// comes back. RPermitExpirableSemaphore with one permit is one: its
// release(id) refuses an unknown or expired id and its lease returns a
// crashed holder's permit; PermitLocker adapts it.

// ErrPermitNotHeld is returned (wrapped) by PermitSemaphore.Release when the
// id is not a permit held now: never acquired, already released, or its
// lease ran out.
var ErrPermitNotHeld = errors.New("semaphore: permit not held (released, expired or unknown)")

// Semaphore is a counting semaphore handle (Redisson RSemaphore): a number
// of available permits in Redis that acquires take and releases give back.
// Releases are not checked against acquires, as in
// java.util.concurrent.Semaphore. A handle may be used by one goroutine at a
// time.
type Semaphore interface {
	// Acquire blocks until n permits are taken at once, or ctx ends (then
	// the error wraps ErrNotObtained and ctx.Err(), and no permit of this
	// call was taken, unless the error says the outcome is unknown).
	Acquire(ctx context.Context, n int) error
	// TryAcquire waits at most wait (0: one attempt) for n permits. False
	// with a nil error: fewer than n were available all that time. A
	// non-nil error means the outcome may be unknown.
	TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error)
	// Release gives n permits back and wakes the waiters.
	Release(ctx context.Context, n int) error
	// AddPermits changes the available permits by n (n < 0 removes them)
	// and wakes the waiters.
	AddPermits(ctx context.Context, n int) error
	// TrySetPermits sets the available permits to n if the semaphore was
	// never set (or was deleted), and reports whether it did.
	TrySetPermits(ctx context.Context, n int) (bool, error)
	// Available reports the available permits now (0 when unset).
	Available(ctx context.Context) (int, error)
}

// PermitSemaphore is a semaphore whose permits have ids and leases
// (Redisson RPermitExpirableSemaphore): a permit not released within its
// lease goes back to the pool.
type PermitSemaphore interface {
	// Acquire blocks until one permit is taken, or ctx ends; lease <= 0
	// takes a permit that never expires. It returns the permit's id.
	Acquire(ctx context.Context, lease time.Duration) (string, error)
	// TryAcquire waits at most wait for one permit. ok false with a nil
	// error: none was available all that time.
	TryAcquire(ctx context.Context, wait, lease time.Duration) (id string, ok bool, err error)
	// Release gives the permit id back. It returns an error wrapping
	// ErrPermitNotHeld when id was not held or its lease had run out.
	Release(ctx context.Context, id string) error
	// AddPermits and TrySetPermits are Semaphore's.
	AddPermits(ctx context.Context, n int) error
	TrySetPermits(ctx context.Context, n int) (bool, error)
	// Available reports the available permits after returning the
	// expired ones.
	Available(ctx context.Context) (int, error)
}

// Latch is a count-down latch (Redisson RCountDownLatch).
type Latch interface {
	// TrySetCount sets the count if the latch does not exist (it is
	// deleted when it reaches 0) and reports whether it did.
	TrySetCount(ctx context.Context, n int64) (bool, error)
	// CountDown decrements the count; at 0 the latch opens (is deleted)
	// and its waiters are woken.
	CountDown(ctx context.Context) error
	// Await waits at most timeout (< 0: until ctx ends) for the count to
	// reach 0 and reports whether it did.
	Await(ctx context.Context, timeout time.Duration) (bool, error)
	// Count reports the count now (0: open or never set).
	Count(ctx context.Context) (int64, error)
}

// SemaphoreMaker makes Semaphore handles for one connection to Redis (one
// client process). Closing it stops their pub/sub without releasing
// anything, as a crashed process would.
type SemaphoreMaker interface {
	NewSemaphore(name string) Semaphore
	Close() error
}

// SemaphoreMakerFunc opens a SemaphoreMaker on a go-redis client it does
// not own.
type SemaphoreMakerFunc func(ctx context.Context, rdb redis.UniversalClient) (SemaphoreMaker, error)

// NewSemaphore implements SemaphoreMaker with Client.Semaphore.
func (c *Client) NewSemaphore(name string) Semaphore { return c.Semaphore(name) }

// SemaphoreMakerOf returns a SemaphoreMakerFunc that opens a Client with
// opts.
func SemaphoreMakerOf(opts ...Option) SemaphoreMakerFunc {
	return func(_ context.Context, rdb redis.UniversalClient) (SemaphoreMaker, error) {
		c := NewClient(rdb, opts...)
		if err := c.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// PermitSemaphoreMaker makes PermitSemaphore handles for one connection to
// Redis, as SemaphoreMaker does Semaphore handles.
type PermitSemaphoreMaker interface {
	NewPermitSemaphore(name string) PermitSemaphore
	Close() error
}

// PermitSemaphoreMakerFunc opens a PermitSemaphoreMaker on a go-redis
// client it does not own.
type PermitSemaphoreMakerFunc func(ctx context.Context, rdb redis.UniversalClient) (PermitSemaphoreMaker, error)

// NewPermitSemaphore implements PermitSemaphoreMaker with
// Client.PermitSemaphore.
func (c *Client) NewPermitSemaphore(name string) PermitSemaphore { return c.PermitSemaphore(name) }

// PermitSemaphoreMakerOf returns a PermitSemaphoreMakerFunc that opens a
// Client with opts.
func PermitSemaphoreMakerOf(opts ...Option) PermitSemaphoreMakerFunc {
	return func(_ context.Context, rdb redis.UniversalClient) (PermitSemaphoreMaker, error) {
		c := NewClient(rdb, opts...)
		if err := c.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
}

// LatchMaker makes Latch handles for one connection to Redis, as
// SemaphoreMaker does Semaphore handles.
type LatchMaker interface {
	NewLatch(name string) Latch
	Close() error
}

// LatchMakerFunc opens a LatchMaker on a go-redis client it does not own.
type LatchMakerFunc func(ctx context.Context, rdb redis.UniversalClient) (LatchMaker, error)

// NewLatch implements LatchMaker with Client.Latch.
func (c *Client) NewLatch(name string) Latch { return c.Latch(name) }

// LatchMakerOf returns a LatchMakerFunc that opens a Client with opts.
func LatchMakerOf(opts ...Option) LatchMakerFunc {
	return func(_ context.Context, rdb redis.UniversalClient) (LatchMaker, error) {
		c := NewClient(rdb, opts...)
		if err := c.Err(); err != nil {
			return nil, err
		}
		return c, nil
	}
}
