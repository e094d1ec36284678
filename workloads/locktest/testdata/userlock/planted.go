package userlock

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// NewPlanted is New with a planted bug: Unlock deletes the key whoever
// holds it, so a stray unlock frees another owner's lock.
func NewPlanted(rdb redis.UniversalClient, lease time.Duration) *Client {
	c := New(rdb, lease)
	c.unlock = func(ctx context.Context, h *Handle) (bool, error) {
		n, err := h.rdb.Del(ctx, h.key).Result()
		return n == 1, err
	}
	return c
}
