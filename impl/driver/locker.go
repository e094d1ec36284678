package driver

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// Locker is a handle on one lock for one owner, served by the owner's driver
// process. It implements impl.Locker, impl.Abandoner (the process is killed),
// impl.Freezer (the process is stopped and continued) and impl.HoldCounter
// (for drivers with CapHoldCount).
type Locker struct {
	m          *Maker
	name       string
	owner      string
	mode       string          // the side of a read-write lock (CapReadWrite); "" otherwise
	token      int64           // of the current grant (fenced drivers)
	onEnqueued func(time.Time) // FairLocker's callback
}

var (
	_ impl.Locker      = (*Locker)(nil)
	_ impl.Abandoner   = (*Locker)(nil)
	_ impl.Preparer    = (*Locker)(nil)
	_ impl.Freezer     = (*Locker)(nil)
	_ impl.HoldCounter = (*Locker)(nil)
	_ impl.Fenced      = (*FencedLocker)(nil)
	_ impl.Enqueuer    = (*FairLocker)(nil)
	_ impl.Sided       = (*SidedLocker)(nil)
)

// SidedLocker is the handle of a driver with CapReadWrite: as a Locker it
// is the write side; Side gives the owner's handle on either side, whose
// requests carry the mode.
type SidedLocker struct{ *Locker }

// Side returns the owner's handle on side mode (impl.ModeRead or
// impl.ModeWrite) of the lock.
func (l *SidedLocker) Side(mode string) impl.Locker {
	return &Locker{m: l.m, name: l.name, owner: l.owner, mode: mode}
}

// FencedLocker is the handle of a driver with CapFenced.
type FencedLocker struct{ *Locker }

// FairLocker is the handle of a driver with CapFair: it reports when a
// request joined the lock's queue, from the reply's "enqueued".
type FairLocker struct{ *Locker }

// OnEnqueued sets the callback told, once a lock or trylock request's reply
// arrived, when the request joined the queue (not called if it never did).
func (l *FairLocker) OnEnqueued(f func(at time.Time)) { l.onEnqueued = f }

// Token returns the fencing token of the last grant (0 before any).
func (l *FencedLocker) Token() int64 { return l.token }

// ReplyError is a driver's error reply: the outcome of the request is
// unknown, unless Redis refused the command (Redis: Redis answered it with
// an error, so it did not take effect).
type ReplyError struct {
	Driver string
	Op     string
	Msg    string
	Redis  bool
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("driver %s: %s: %s", e.Driver, e.Op, e.Msg)
}

// redisReply marks a ReplyError that Redis gave; errors.As with go-redis's
// redis.Error matches it, so callers treat it as they treat go-redis's.
type redisReply struct{ *ReplyError }

// RedisError marks the error as an error reply from Redis (redis.Error).
func (redisReply) RedisError() {}

func (l *Locker) do(ctx context.Context, req Request) (Reply, error) {
	p, err := l.m.proc(ctx, l.owner)
	if err != nil {
		return Reply{}, err
	}
	req.Name = l.name
	req.Mode = l.mode
	if p.shared {
		req.Owner = l.owner
	}
	req.Interruptible = p.banner.interrupts() && impl.IsInterruptible(ctx)
	form := impl.CallFormOf(ctx)
	if form != nil && p.banner.Has(CapForms) {
		req.FormDraw = form.Draw
	}
	rep, err := p.call(ctx, req, l.m.opts.DefaultTimeout)
	if err != nil {
		return Reply{}, err
	}
	if form != nil {
		form.Used = rep.Form
	}
	if rep.Enqueued != 0 && l.onEnqueued != nil {
		if clock, err := newMonoClock(); err == nil {
			l.onEnqueued(clock.at(rep.Enqueued))
		}
	}
	if rep.Status == StatusError {
		e := &ReplyError{Driver: p.banner.String(), Op: req.Op, Msg: rep.Error}
		if rep.RedisError {
			return rep, redisReply{e}
		}
		return rep, e
	}
	return rep, nil
}

// Lock asks the driver for the lock and waits for its answer: until ctx's
// deadline plus the reply grace. A driver that gives up in time answers
// fail, returned as impl.ErrNotObtained joined with
// context.DeadlineExceeded.
func (l *Locker) Lock(ctx context.Context, lease time.Duration) error {
	rep, err := l.do(ctx, Request{Op: OpLock, LeaseMS: millis(lease)})
	if err != nil {
		return err
	}
	if rep.Status == StatusFail {
		return errors.Join(impl.ErrNotObtained, failCause(ctx, rep))
	}
	return l.granted(rep)
}

// failCause is why an acquire answered fail: its interrupt (ctx's
// cancellation), else its deadline.
func failCause(ctx context.Context, rep Reply) error {
	if rep.Interrupted && ctx.Err() != nil {
		return ctx.Err()
	}
	return context.DeadlineExceeded
}

// TryLock asks the driver to wait at most wait for the lock.
func (l *Locker) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	rep, err := l.do(ctx, Request{Op: OpTryLock, WaitMS: millis(wait), LeaseMS: millis(lease)})
	if err != nil {
		return false, err
	}
	if rep.Status == StatusFail {
		if rep.Interrupted {
			return false, errors.Join(impl.ErrNotObtained, failCause(ctx, rep))
		}
		return false, nil
	}
	return true, l.granted(rep)
}

// granted keeps the token of a grant. A fenced driver sends it with every
// ok to lock and trylock (see the protocol); an ok without it is an error,
// so the op's outcome is unknown to the checkers. Asking the driver for the
// counter's value instead once passed Redisson's null grant off as a shared
// token.
func (l *Locker) granted(rep Reply) error {
	l.token = rep.Token
	if rep.Token == 0 && l.m.fenced() {
		return fmt.Errorf("driver %s: an ok without the fencing token its fenced capability promises", l.m.opts.name())
	}
	return nil
}

// Unlock asks the driver to release one hold; its fail is impl.ErrNotOwner.
func (l *Locker) Unlock(ctx context.Context) error {
	rep, err := l.do(ctx, Request{Op: OpUnlock})
	if err != nil {
		return err
	}
	if rep.Status == StatusFail {
		return fmt.Errorf("%w (driver %s)", impl.ErrNotOwner, l.m.opts.name())
	}
	return nil
}

// HoldCount asks the driver how many holds its owner has on the lock.
func (l *Locker) HoldCount(ctx context.Context) (int, error) {
	rep, err := l.do(ctx, Request{Op: OpHoldCount})
	if err != nil {
		return 0, err
	}
	if rep.Status != StatusOK {
		return 0, fmt.Errorf("driver %s: holdcount: %s", l.m.opts.name(), rep.Status)
	}
	return rep.Count, nil
}

// Abandon kills the owner's driver process (SIGKILL to its process group):
// nothing is unlocked and its renewal dies with it, as in a crash. Every
// handle of the owner is abandoned with it.
func (l *Locker) Abandon() { l.m.abandon(l.owner) }

// Freeze stops the owner's driver process group (SIGSTOP), renewal threads
// included. A handle whose driver has not started has nothing to freeze.
func (l *Locker) Freeze() error { return l.signal(syscall.SIGSTOP) }

// Thaw continues a frozen driver process group (SIGCONT).
func (l *Locker) Thaw() error { return l.signal(syscall.SIGCONT) }

func (l *Locker) signal(sig syscall.Signal) error {
	if p := l.m.running(l.owner); p != nil {
		return p.signal(sig)
	}
	return nil
}

// Interruptible reports whether a call of this handle ends with its
// context's cancellation as the Locker contract says: the owner's process
// runs a driver that announces interrupts (CapInterrupt). A cancelled call
// of any other driver ends its process (outcome unknown).
func (l *Locker) Interruptible() bool {
	p := l.m.running(l.owner)
	return p != nil && p.shared && p.banner.interrupts()
}

// Prepare starts the owner's driver process (banner and hello) unless it
// runs already.
func (l *Locker) Prepare(ctx context.Context) error {
	_, err := l.m.proc(ctx, l.owner)
	return err
}
