package impl

import (
	"context"
	"time"
)

// FencedLock is one owner's handle on a Redisson-compatible fenced lock
// (RFencedLock): a ReentrantLock whose acquire script also INCRs
// redisson_lock_token:{<name>}, so every grant, reentrant grants included,
// carries a token strictly larger than any earlier grant's (as long as Redis
// keeps the counter: a restart without persistence or a failover that loses
// the INCR can reissue tokens). A protected resource rejects writes whose
// token is lower than the highest it has seen.
type FencedLock struct {
	l *ReentrantLock
}

var (
	_ Locker        = (*FencedLock)(nil)
	_ Fenced        = (*FencedLock)(nil)
	_ LeaseWatcher  = (*FencedLock)(nil)
	_ Abandoner     = (*FencedLock)(nil)
	_ HoldCounter   = (*FencedLock)(nil)
	_ TTLReporter   = (*FencedLock)(nil)
	_ ForceUnlocker = (*FencedLock)(nil)
)

// Token returns the token of this handle's latest grant, or 0 when it holds
// nothing.
func (f *FencedLock) Token() int64 {
	f.l.hold.mu.Lock()
	defer f.l.hold.mu.Unlock()
	if f.l.hold.count == 0 {
		return 0
	}
	return f.l.token
}

// CurrentToken reads the token counter in Redis (Redisson's getToken): the
// token of the latest grant by any owner, 0 when none was ever granted.
func (f *FencedLock) CurrentToken(ctx context.Context) (int64, error) {
	n, err := f.l.c.rdb.Get(ctx, TokenName(f.l.name)).Int64()
	if err != nil && isNil(err) {
		return 0, nil
	}
	return n, err
}

// Name is the lock's name.
func (f *FencedLock) Name() string { return f.l.name }

// Field is this owner's hash field, <clientId>:<owner>.
func (f *FencedLock) Field() string { return f.l.field }

// Lock is ReentrantLock.Lock; a grant sets Token.
func (f *FencedLock) Lock(ctx context.Context, lease time.Duration) error {
	return f.l.Lock(ctx, lease)
}

// TryLock is ReentrantLock.TryLock; a grant sets Token.
func (f *FencedLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	return f.l.TryLock(ctx, wait, lease)
}

// Unlock is ReentrantLock.Unlock; the token counter is left as it is.
func (f *FencedLock) Unlock(ctx context.Context) error { return f.l.Unlock(ctx) }

// ForceUnlock is ReentrantLock.ForceUnlock.
func (f *FencedLock) ForceUnlock(ctx context.Context) (bool, error) { return f.l.ForceUnlock(ctx) }

// IsLocked is ReentrantLock.IsLocked.
func (f *FencedLock) IsLocked(ctx context.Context) (bool, error) { return f.l.IsLocked(ctx) }

// IsHeldByMe is ReentrantLock.IsHeldByMe.
func (f *FencedLock) IsHeldByMe(ctx context.Context) (bool, error) { return f.l.IsHeldByMe(ctx) }

// HoldCount is ReentrantLock.HoldCount.
func (f *FencedLock) HoldCount(ctx context.Context) (int, error) { return f.l.HoldCount(ctx) }

// RemainTTL is ReentrantLock.RemainTTL.
func (f *FencedLock) RemainTTL(ctx context.Context) (time.Duration, error) {
	return f.l.RemainTTL(ctx)
}

// Lost is ReentrantLock.Lost.
func (f *FencedLock) Lost() <-chan struct{} { return f.l.Lost() }

// Abandon is ReentrantLock.Abandon.
func (f *FencedLock) Abandon() { f.l.Abandon() }
