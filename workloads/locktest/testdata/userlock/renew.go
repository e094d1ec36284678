package userlock

import (
	"context"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// renewOwned extends the lock's lease only while it still holds this
// handle's token: a hold that ran out stays lost.
var renewOwned = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)

// renewRetaking is the planted renewal bug: when the handle's token is no
// longer there (the hold ran out, and maybe another owner took the lock),
// it sets it again, with no look at who holds the lock now.
var renewRetaking = redis.NewScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
	return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
return 1`)

// NewRenewed is New with a watchdog: a hold asked for with lease <= 0 lasts
// lease and is renewed every lease/3 until Unlock, while the lock still
// holds the handle's token; the first renewal that finds it gone ends.
func NewRenewed(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := New(rdb, lease)
	c.renew = renewOwned
	return c
}

// NewRetaking is NewRenewed with a planted bug: a renewal that finds the
// handle's token gone takes the lock back (renewRetaking).
func NewRetaking(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := New(rdb, lease)
	c.renew = renewRetaking
	return c
}

// renewal is the watchdog of one hold.
type renewal struct {
	stop chan struct{} // closed (by end) to stop it
	once sync.Once
	done chan struct{} // closed when it has stopped
}

func (r *renewal) end() { r.once.Do(func() { close(r.stop) }) }

// startRenewal starts the watchdog of the hold just granted, after the one
// of any earlier hold has stopped.
func (h *Handle) startRenewal(lease time.Duration) {
	h.stopRenewal()
	r := &renewal{stop: make(chan struct{}), done: make(chan struct{})}
	h.mu.Lock()
	h.ren = r
	h.mu.Unlock()
	h.c.watchdogs.Add(1)
	go func() {
		defer h.c.watchdogs.Done()
		defer close(r.done)
		t := time.NewTicker(lease / 3)
		defer t.Stop()
		for {
			select {
			case <-r.stop:
				return
			case <-h.c.closing:
				return
			case <-t.C:
			}
			ctx, cancel := context.WithTimeout(context.Background(), lease/3)
			n, err := h.c.renew.Run(ctx, h.rdb, []string{h.key}, h.token, lease.Milliseconds()).Int()
			cancel()
			if err == nil && n == 0 {
				return // the hold is lost
			}
		}
	}()
}

// stopRenewal stops the current hold's watchdog and waits until it has
// (a renewal in flight ends within lease/3), so that no renewal runs after
// the Unlock that follows.
func (h *Handle) stopRenewal() {
	h.mu.Lock()
	r := h.ren
	h.ren = nil
	h.mu.Unlock()
	if r != nil {
		r.end()
		<-r.done
	}
}
