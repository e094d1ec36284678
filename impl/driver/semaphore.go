package driver

import (
	"context"
	"errors"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// CapSemaphore: the driver serves the sem_* requests on a counting
// semaphore (Redisson's RSemaphore); see the package doc.
const CapSemaphore = "semaphore"

// Ops of the semaphore requests.
const (
	OpSemTryAcquire    = "sem_tryacquire"
	OpSemAcquire       = "sem_acquire"
	OpSemRelease       = "sem_release"
	OpSemAddPermits    = "sem_addpermits"
	OpSemTrySetPermits = "sem_trysetpermits"
	OpSemAvailable     = "sem_available"
)

// semOwner is the owner of every semaphore request of a Maker: nothing is
// owned, and one process serves them all.
const semOwner = "sem"

// Semaphore is a handle on one semaphore served by a driver process. It
// implements impl.Semaphore; the Maker's one process serves every
// semaphore of it.
type Semaphore struct{ l *Locker }

var _ impl.Semaphore = (*Semaphore)(nil)

// NewSemaphore returns the handle of semaphore name (impl.SemaphoreMaker).
func (m *Maker) NewSemaphore(name string) impl.Semaphore {
	return &Semaphore{l: &Locker{m: m, name: name, owner: semOwner}}
}

// OpenSemaphores is Open for semaphores: its Makers' handles speak the
// sem_* requests to a driver with CapSemaphore.
func OpenSemaphores(opts Options) impl.SemaphoreMakerFunc {
	return openAs[impl.SemaphoreMaker](opts)
}

// Acquire asks for n permits until ctx's deadline; a driver that gives up
// in time answers fail, returned as impl.ErrNotObtained joined with
// context.DeadlineExceeded.
func (s *Semaphore) Acquire(ctx context.Context, n int) error {
	rep, err := s.l.do(ctx, Request{Op: OpSemAcquire, Permits: n})
	if err != nil {
		return err
	}
	if rep.Status == StatusFail {
		return errors.Join(impl.ErrNotObtained, context.DeadlineExceeded)
	}
	return nil
}

// TryAcquire asks for n permits, waiting at most wait.
func (s *Semaphore) TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	return s.l.okOrFail(ctx, Request{Op: OpSemTryAcquire, Permits: n, WaitMS: millis(wait)})
}

// Release gives n permits back.
func (s *Semaphore) Release(ctx context.Context, n int) error {
	_, err := s.l.okOnly(ctx, Request{Op: OpSemRelease, Permits: n})
	return err
}

// AddPermits changes the permits by n.
func (s *Semaphore) AddPermits(ctx context.Context, n int) error {
	_, err := s.l.okOnly(ctx, Request{Op: OpSemAddPermits, Permits: n})
	return err
}

// TrySetPermits sets the permits if the semaphore was unset.
func (s *Semaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return s.l.okOrFail(ctx, Request{Op: OpSemTrySetPermits, Permits: n})
}

// Available asks for the available permits.
func (s *Semaphore) Available(ctx context.Context) (int, error) {
	rep, err := s.l.okOnly(ctx, Request{Op: OpSemAvailable})
	return rep.Count, err
}

// Prepare starts the Maker's driver process (banner and hello) unless it
// runs already.
func (s *Semaphore) Prepare(ctx context.Context) error { return s.l.Prepare(ctx) }
