package impl

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RSemaphore is a handle on a Redisson RSemaphore: the available permits are
// the integer at key name, taken with DECRBY and given back with INCRBY by
// Lua scripts that are Redisson's own (semaphore_*.lua), and waiters are
// woken through redisson_sc:{name}, whose messages Redisson publishes on
// every release, addPermits and trySetPermits. Go and Java clients can share
// one semaphore.
//
// Guarantees: an acquire takes its n permits atomically or not at all; a
// waiter retries on every message and subscription, and at the latest one
// watchdog timeout after its last attempt (pub/sub is lossy), so a waiter
// on available permits is granted within that bound while it is not
// outrun by others. Nothing is owned: a crashed client's permits are never
// given back (RPermitExpirableSemaphore returns them).
type RSemaphore struct {
	c       *Client
	name    string
	channel string
	scripts SemaphoreScripts
}

// SemaphoreScripts are an RSemaphore's scripts, with the KEYS, ARGV and
// replies of semaphore_*.lua. The zero value's nil fields are Redisson's.
// Only deliberately broken semaphores (impl/mutants) set any.
type SemaphoreScripts struct {
	TryAcquire, Release, AddPermits, TrySetPermits *redis.Script
}

// withDefaults fills the nil scripts with Redisson's.
func (sc SemaphoreScripts) withDefaults() SemaphoreScripts {
	pick := func(s, def *redis.Script) *redis.Script {
		if s == nil {
			return def
		}
		return s
	}
	return SemaphoreScripts{
		TryAcquire:    pick(sc.TryAcquire, semaphoreTryAcquire),
		Release:       pick(sc.Release, semaphoreRelease),
		AddPermits:    pick(sc.AddPermits, semaphoreAddPermits),
		TrySetPermits: pick(sc.TrySetPermits, semaphoreTrySetPermits),
	}
}

// Semaphore returns the handle of the RSemaphore name.
func (c *Client) Semaphore(name string) *RSemaphore {
	return c.SemaphoreWith(name, SemaphoreScripts{})
}

// SemaphoreWith returns the handle of the RSemaphore name running scripts
// (nil fields: Redisson's).
func (c *Client) SemaphoreWith(name string, scripts SemaphoreScripts) *RSemaphore {
	return &RSemaphore{c: c, name: name, channel: SemaphoreChannelName(name), scripts: scripts.withDefaults()}
}

// errPermits is returned for a permit count < 1 where one is needed.
var errPermits = errors.New("semaphore: permits must be positive")

// Acquire implements Semaphore.
func (s *RSemaphore) Acquire(ctx context.Context, n int) error {
	_, err := s.acquire(ctx, n, -1)
	return err
}

// TryAcquire implements Semaphore.
func (s *RSemaphore) TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	return s.acquire(ctx, n, max(wait, 0))
}

func (s *RSemaphore) acquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	if err := s.c.usable(); err != nil {
		return false, err
	}
	if n < 1 {
		return false, errPermits
	}
	try := func(ctx context.Context) (bool, time.Duration, error) {
		ok, err := s.scripts.TryAcquire.Run(ctx, s.c.scripter(false), []string{s.name}, n).Int64()
		return ok == 1, -1, err
	}
	switch out, err := s.c.waitAcquire(ctx, s.channel, wait, nil, try); out {
	case waitAcquired:
		return true, nil
	case waitUncertain:
		// No owner to read back: the permits may have been taken.
		return false, fmt.Errorf("semaphore %q: acquire of %d: outcome unknown: %w", s.name, n, err)
	default:
		return false, err
	}
}

// Release implements Semaphore.
func (s *RSemaphore) Release(ctx context.Context, n int) error {
	if n < 1 {
		return errPermits
	}
	return s.publishing(ctx, s.scripts.Release, n)
}

// AddPermits implements Semaphore.
func (s *RSemaphore) AddPermits(ctx context.Context, n int) error {
	return s.publishing(ctx, s.scripts.AddPermits, n)
}

// publishing runs a script that changes the permits by n and publishes.
func (s *RSemaphore) publishing(ctx context.Context, script *redis.Script, n int) error {
	if err := s.c.usable(); err != nil {
		return err
	}
	err := script.Run(ctx, s.c.scripter(false), []string{s.name, s.channel}, n, publishCommand).Err()
	if err != nil && !isNil(err) {
		return fmt.Errorf("semaphore %q: %w", s.name, err)
	}
	return nil
}

// TrySetPermits implements Semaphore.
func (s *RSemaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	if err := s.c.usable(); err != nil {
		return false, err
	}
	ok, err := s.scripts.TrySetPermits.Run(ctx, s.c.scripter(false), []string{s.name, s.channel}, n, publishCommand).Int64()
	if err != nil {
		return false, fmt.Errorf("semaphore %q: %w", s.name, err)
	}
	return ok == 1, nil
}

// Available implements Semaphore (Redisson's availablePermits: GET).
func (s *RSemaphore) Available(ctx context.Context) (int, error) {
	if err := s.c.usable(); err != nil {
		return 0, err
	}
	n, err := s.c.rdb.Get(ctx, s.name).Int()
	if isNil(err) {
		return 0, nil
	}
	return n, err
}
