package impl

import (
	"context"
	"time"
)

var (
	_ Locker    = (*RWLock)(nil)
	_ Sided     = (*RWLock)(nil)
	_ Abandoner = (*RWLock)(nil)
)

// Lock takes the write side (the harness drives a Sided handle as its
// write side unless it asks for a side).
func (l *RWLock) Lock(ctx context.Context, lease time.Duration) error {
	return l.write.Lock(ctx, lease)
}

// TryLock tries the write side.
func (l *RWLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return l.write.TryLock(ctx, wait, lease)
}

// Unlock releases one write hold.
func (l *RWLock) Unlock(ctx context.Context) error { return l.write.Unlock(ctx) }

// Side returns the read side for ModeRead, else the write side.
func (l *RWLock) Side(mode string) Locker {
	if mode == ModeRead {
		return l.read
	}
	return l.write
}

// Abandon stops the renewal of both sides without unlocking.
func (l *RWLock) Abandon() {
	l.read.Abandon()
	l.write.Abandon()
}

// RWLockMaker opens a Client with opts on each call and makes read-write
// lock handles (Client.RWLock), which implement Sided.
func RWLockMaker(opts ...Option) MakerFunc {
	return makerFunc(func(c *Client, name, owner string) Locker { return c.RWLock(name, owner) }, opts)
}
