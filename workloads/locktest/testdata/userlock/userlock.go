package userlock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/impl"
)

// pollEvery is how long an acquire waits between attempts on a held lock.
const pollEvery = 2 * time.Millisecond

// release deletes the lock only if it still holds this handle's token.
var release = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("DEL", KEYS[1])
end
return 0`)

// Handle is one owner's handle on one lock: Redis key name, value the
// handle's random token while it holds the lock.
type Handle struct {
	c     *Client
	rdb   redis.UniversalClient
	key   string
	token string
	lease time.Duration // of Lock(ctx, 0)
	// unlock releases the lock; the planted bug replaces it.
	unlock func(ctx context.Context, h *Handle) (bool, error)

	mu  sync.Mutex
	ren *renewal // the watchdog of the current hold (nil: none)
}

// TryLock tries to take the lock for lease (<= 0: the client's lease,
// renewed until Unlock by a client with a watchdog) until wait has passed.
// It reports false with a nil error when another owner held the lock all
// along.
func (h *Handle) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	renewed := lease <= 0 && h.c.renew != nil
	if lease <= 0 {
		lease = h.lease
	}
	deadline := time.Now().Add(wait)
	for {
		ok, err := h.rdb.SetNX(ctx, h.key, h.token, lease).Result()
		if err != nil && h.c.timeoutGrants && timedOut(err) {
			ok, err = true, nil
		}
		if ok && err == nil && renewed {
			h.startRenewal(lease)
		}
		if err != nil || ok {
			return ok, err
		}
		if !time.Now().Before(deadline) {
			return false, nil
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return false, errors.Join(impl.ErrNotObtained, ctx.Err())
		case <-t.C:
		}
	}
}

// Lock waits until it takes the lock or ctx ends.
func (h *Handle) Lock(ctx context.Context, lease time.Duration) error {
	for {
		ok, err := h.TryLock(ctx, time.Minute, lease)
		if err != nil || ok {
			return err
		}
	}
}

// Unlock releases the lock; impl.ErrNotOwner when this handle does not
// hold it.
func (h *Handle) Unlock(ctx context.Context) error {
	h.stopRenewal()
	ok, err := h.unlock(ctx, h)
	if err == nil && !ok {
		err = impl.ErrNotOwner
	}
	return err
}

func compareAndDelete(ctx context.Context, h *Handle) (bool, error) {
	n, err := release.Run(ctx, h.rdb, []string{h.key}, h.token).Int()
	return n == 1, err
}

// Client makes handles on one go-redis client.
type Client struct {
	rdb    redis.UniversalClient
	lease  time.Duration
	unlock func(ctx context.Context, h *Handle) (bool, error)
	// renew, if set, renews holds taken with lease <= 0 (see NewRenewed).
	renew *redis.Script
	// timeoutGrants is a planted bug: an acquire that timed out is
	// answered as a grant (NewTimeoutGrants).
	timeoutGrants bool

	closing   chan struct{} // closed by Close: every watchdog stops
	closeOnce sync.Once
	watchdogs sync.WaitGroup
}

// New returns a Client whose Lock(ctx, 0) holds last lease.
func New(rdb redis.UniversalClient, lease time.Duration) *Client {
	return &Client{rdb: rdb, lease: lease, unlock: compareAndDelete, closing: make(chan struct{})}
}

// NewLocker returns owner's handle on the lock called name, with a token
// of its own.
func (c *Client) NewLocker(name, owner string) impl.Locker {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return &Handle{c: c, rdb: c.rdb, key: name, token: owner + ":" + hex.EncodeToString(b), lease: c.lease, unlock: c.unlock}
}

// Close stops every watchdog without unlocking anything, as a crashed
// process would; it leaves rdb open.
func (c *Client) Close() error {
	c.closeOnce.Do(func() { close(c.closing) })
	c.watchdogs.Wait()
	return nil
}
