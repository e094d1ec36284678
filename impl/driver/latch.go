package driver

import (
	"context"
	"errors"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// CapLatch: the driver serves the latch_* requests on a count-down latch
// (Redisson's RCountDownLatch); see the package doc.
const CapLatch = "latch"

// Ops of the latch requests.
const (
	OpLatchTrySetCount = "latch_trysetcount"
	OpLatchCountDown   = "latch_countdown"
	OpLatchAwait       = "latch_await"
	OpLatchCount       = "latch_count"
)

// LatchGiveUp is how long before timeout_ms a driver's latch_await gives
// up (the package doc): a wait that long or longer is cut by the deadline.
const LatchGiveUp = 250 * time.Millisecond

// Latch is a handle on one count-down latch served by a driver process. It
// implements impl.Latch; the Maker's one process serves every latch of it.
type Latch struct{ l *Locker }

var _ impl.Latch = (*Latch)(nil)

// NewLatch returns the handle of latch name (impl.LatchMaker).
func (m *Maker) NewLatch(name string) impl.Latch {
	return &Latch{l: &Locker{m: m, name: name, owner: semOwner}}
}

// OpenLatches is Open for latches: its Makers' handles speak the latch_*
// requests to a driver with CapLatch.
func OpenLatches(opts Options) impl.LatchMakerFunc {
	return openAs[impl.LatchMaker](opts)
}

// TrySetCount sets the count if the latch does not exist.
func (l *Latch) TrySetCount(ctx context.Context, n int64) (bool, error) {
	return l.l.okOrFail(ctx, Request{Op: OpLatchTrySetCount, Count: n})
}

// CountDown decrements the count.
func (l *Latch) CountDown(ctx context.Context) error {
	_, err := l.l.okOnly(ctx, Request{Op: OpLatchCountDown})
	return err
}

// Count asks for the count.
func (l *Latch) Count(ctx context.Context) (int64, error) {
	rep, err := l.l.okOnly(ctx, Request{Op: OpLatchCount})
	return int64(rep.Count), err
}

// Await asks the driver to wait at most timeout (< 0: until ctx's
// deadline) for the count to reach 0. The driver's fail is false with a
// nil error when it waited all of timeout; when ctx's deadline cut the wait
// short (timeout < 0, or longer than the deadline leaves less LatchGiveUp),
// it is impl.ErrNotObtained joined with context.DeadlineExceeded, as the Go
// port answers ctx's end.
func (l *Latch) Await(ctx context.Context, timeout time.Duration) (bool, error) {
	budget := l.l.m.opts.DefaultTimeout
	if dl, ok := ctx.Deadline(); ok {
		budget = time.Until(dl)
	}
	cut := timeout < 0 || budget-LatchGiveUp < timeout
	rep, err := l.l.do(ctx, Request{Op: OpLatchAwait, WaitMS: latchWait(timeout)})
	switch {
	case err != nil:
		return false, err
	case rep.Status == StatusOK:
		return true, nil
	case cut:
		return false, errors.Join(impl.ErrNotObtained, context.DeadlineExceeded)
	}
	return false, nil
}

// latchWait is latch_await's wait_ms: -1 for "until the deadline", else
// millis (0: one look at the count).
func latchWait(timeout time.Duration) int64 {
	if timeout < 0 {
		return -1
	}
	return millis(timeout)
}

// Prepare starts the Maker's driver process (banner and hello) unless it
// runs already.
func (l *Latch) Prepare(ctx context.Context) error { return l.l.Prepare(ctx) }
