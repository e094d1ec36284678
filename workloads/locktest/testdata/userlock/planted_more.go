package userlock

import (
	"context"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"
)

// Planted bugs of the renewed lock (NewRenewed), each a mistake a lock
// written by hand makes. None of them needs a hook for lockcheck to reach
// it: a real pause of the client's process, a slow reply or a dropped
// connection does.

// NewGetThenDel is NewRenewed whose Unlock reads the key and deletes it in
// two commands: a pause between the two deletes a lock that ran out and
// was granted to another owner meanwhile.
func NewGetThenDel(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := NewRenewed(rdb, lease)
	c.unlock = func(ctx context.Context, h *Handle) (bool, error) {
		v, err := h.rdb.Get(ctx, h.key).Result()
		if errors.Is(err, redis.Nil) || err == nil && v != h.token {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		n, err := h.rdb.Del(ctx, h.key).Result()
		return n == 1, err
	}
	return c
}

// renewXX is the renewal of NewSetXX: SET key token XX PX lease, which
// overwrites whatever token holds the key.
var renewXX = redis.NewScript(`
if redis.call("SET", KEYS[1], ARGV[1], "XX", "PX", ARGV[2]) then
	return 1
end
return 0`)

// NewSetXX is NewRenewed whose watchdog renews with SET XX PX: after a
// pause past the lease it takes the lock back from the owner granted
// meanwhile.
func NewSetXX(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := New(rdb, lease)
	c.renew = renewXX
	return c
}

// NewTimeoutGrants is NewRenewed whose acquire answers a command that
// timed out as a grant: the SET may not have run.
func NewTimeoutGrants(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := NewRenewed(rdb, lease)
	c.timeoutGrants = true
	return c
}

// timedOut reports whether err is a command that timed out (its outcome
// unknown).
func timedOut(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
