package impl

import (
	"context"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// noExpiry is Redisson's nonExpirableTimeout: the lease score of a permit
// taken without a lease.
const noExpiry int64 = 922337203685477

// RPermitSemaphore is a handle on a Redisson RPermitExpirableSemaphore: the
// available permits at key name, and the held permits in the ZSET
// {name}:timeout, each a 16-byte id (hex in the API, raw bytes in Redis)
// scored by the epoch ms its lease ends, on the acquiring client's clock.
// Its scripts are Redisson's own (permit_*.lua); every acquire first
// returns the expired permits to the pool.
//
// Guarantees: a permit is held from its grant until its release or its
// lease's end, whichever comes first; Release of an expired or unknown id
// returns ErrPermitNotHeld (the expired permit goes back to the pool all
// the same). A waiter retries on every message on redisson_sc:{name}, at
// the nearest lease's end, and at the latest one watchdog timeout after its
// last attempt.
type RPermitSemaphore struct {
	c       *Client
	name    string
	timeout string
	channel string
	scripts PermitScripts
}

// PermitScripts are an RPermitSemaphore's acquire and release scripts,
// with the KEYS, ARGV and replies of permit_tryacquire.lua and
// permit_release.lua; nil fields are Redisson's. Only deliberately broken
// semaphores (impl/mutants) set any.
type PermitScripts struct {
	TryAcquire, Release *redis.Script
}

// PermitSemaphore returns the handle of the RPermitExpirableSemaphore name.
func (c *Client) PermitSemaphore(name string) *RPermitSemaphore {
	return c.PermitSemaphoreWith(name, PermitScripts{})
}

// PermitSemaphoreWith returns the handle of the RPermitExpirableSemaphore
// name running scripts (nil fields: Redisson's).
func (c *Client) PermitSemaphoreWith(name string, scripts PermitScripts) *RPermitSemaphore {
	if scripts.TryAcquire == nil {
		scripts.TryAcquire = permitTryAcquire
	}
	if scripts.Release == nil {
		scripts.Release = permitRelease
	}
	return &RPermitSemaphore{c: c, name: name, timeout: PermitTimeoutName(name), channel: SemaphoreChannelName(name), scripts: scripts}
}

// Acquire implements PermitSemaphore.
func (s *RPermitSemaphore) Acquire(ctx context.Context, lease time.Duration) (string, error) {
	id, _, err := s.acquire(ctx, -1, lease)
	return id, err
}

// TryAcquire implements PermitSemaphore.
func (s *RPermitSemaphore) TryAcquire(ctx context.Context, wait, lease time.Duration) (string, bool, error) {
	return s.acquire(ctx, max(wait, 0), lease)
}

func (s *RPermitSemaphore) acquire(ctx context.Context, wait, lease time.Duration) (string, bool, error) {
	if err := s.c.usable(); err != nil {
		return "", false, err
	}
	var id string
	try := func(ctx context.Context) (bool, time.Duration, error) {
		id = newRequestID() // Redisson's generateId: 16 random bytes, hex
		return s.tryOnce(ctx, id, lease)
	}
	switch out, err := s.c.waitAcquire(ctx, s.channel, wait, nil, try); out {
	case waitAcquired:
		return id, true, nil
	case waitUncertain:
		return "", false, fmt.Errorf("permit semaphore %q: acquire: outcome unknown: %w", s.name, err)
	default:
		return "", false, err
	}
}

// tryOnce runs the acquire script once for id. Not granted: ttl is the
// time to the nearest lease's end (-1: none expires).
func (s *RPermitSemaphore) tryOnce(ctx context.Context, id string, lease time.Duration) (bool, time.Duration, error) {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return false, 0, err
	}
	now := s.c.opts.clock.Now().UnixMilli()
	until := noExpiry
	if lease > 0 {
		until = now + millis(lease)
	}
	keys := []string{s.name, s.timeout, s.channel}
	reply, err := s.scripts.TryAcquire.Run(ctx, s.c.scripter(false), keys, 1, until, now, noExpiry, publishCommand, raw).Text()
	switch {
	case isNil(err):
		return false, -1, nil
	case err != nil:
		return false, 0, err
	case reply == "OK":
		return true, 0, nil
	case strings.HasPrefix(reply, ":"):
		at, perr := strconv.ParseFloat(reply[1:], 64)
		if perr != nil {
			return false, 0, fmt.Errorf("permit semaphore %q: acquire script returned %q", s.name, reply)
		}
		return false, time.Duration(int64(at)-s.c.opts.clock.Now().UnixMilli()) * time.Millisecond, nil
	}
	return false, 0, fmt.Errorf("permit semaphore %q: acquire script returned %q", s.name, reply)
}

// Release implements PermitSemaphore.
func (s *RPermitSemaphore) Release(ctx context.Context, id string) error {
	if err := s.c.usable(); err != nil {
		return err
	}
	raw, err := hex.DecodeString(id)
	if err != nil || id == "" {
		return fmt.Errorf("permit semaphore %q: permit id %q: %w", s.name, id, ErrPermitNotHeld)
	}
	keys := []string{s.name, s.channel, s.timeout}
	now := s.c.opts.clock.Now().UnixMilli()
	ok, err := s.scripts.Release.Run(ctx, s.c.scripter(false), keys, raw, 1, now, publishCommand).Int64()
	if err != nil {
		return fmt.Errorf("permit semaphore %q: %w", s.name, err)
	}
	if ok != 1 {
		return fmt.Errorf("permit semaphore %q: permit %s: %w", s.name, id, ErrPermitNotHeld)
	}
	return nil
}

// AddPermits implements PermitSemaphore.
func (s *RPermitSemaphore) AddPermits(ctx context.Context, n int) error {
	if err := s.c.usable(); err != nil {
		return err
	}
	err := permitAddPermits.Run(ctx, s.c.scripter(false), []string{s.name, s.channel}, n, publishCommand).Err()
	if err != nil && !isNil(err) {
		return fmt.Errorf("permit semaphore %q: %w", s.name, err)
	}
	return nil
}

// TrySetPermits implements PermitSemaphore (the script is RSemaphore's).
func (s *RPermitSemaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return s.c.Semaphore(s.name).TrySetPermits(ctx, n)
}

// Available implements PermitSemaphore.
func (s *RPermitSemaphore) Available(ctx context.Context) (int, error) {
	if err := s.c.usable(); err != nil {
		return 0, err
	}
	keys := []string{s.name, s.timeout, s.channel}
	n, err := permitAvailable.Run(ctx, s.c.scripter(false), keys, s.c.opts.clock.Now().UnixMilli(), publishCommand).Int()
	if err != nil {
		return 0, fmt.Errorf("permit semaphore %q: %w", s.name, err)
	}
	return n, nil
}
