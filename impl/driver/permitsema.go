package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// CapPermitSemaphore: the driver serves the psem_* requests on a semaphore
// whose permits have ids and leases (Redisson's RPermitExpirableSemaphore);
// see the package doc.
const CapPermitSemaphore = "permit-semaphore"

// Ops of the permit semaphore requests.
const (
	OpPsemTryAcquire    = "psem_tryacquire"
	OpPsemAcquire       = "psem_acquire"
	OpPsemRelease       = "psem_release"
	OpPsemAddPermits    = "psem_addpermits"
	OpPsemTrySetPermits = "psem_trysetpermits"
	OpPsemAvailable     = "psem_available"
)

// PermitSemaphore is a handle on one permit semaphore served by a driver
// process. It implements impl.PermitSemaphore; the Maker's one process
// serves every permit semaphore of it. Permit ids are the driver's, passed
// back as they came.
type PermitSemaphore struct{ l *Locker }

var _ impl.PermitSemaphore = (*PermitSemaphore)(nil)

// NewPermitSemaphore returns the handle of permit semaphore name
// (impl.PermitSemaphoreMaker).
func (m *Maker) NewPermitSemaphore(name string) impl.PermitSemaphore {
	return &PermitSemaphore{l: &Locker{m: m, name: name, owner: semOwner}}
}

// OpenPermitSemaphores is Open for permit semaphores: its Makers' handles
// speak the psem_* requests to a driver with CapPermitSemaphore.
func OpenPermitSemaphores(opts Options) impl.PermitSemaphoreMakerFunc {
	return openAs[impl.PermitSemaphoreMaker](opts)
}

// Acquire asks for one permit until ctx's deadline; a driver that gives up
// in time answers fail, returned as impl.ErrNotObtained joined with
// context.DeadlineExceeded. lease <= 0: a permit that never expires.
func (s *PermitSemaphore) Acquire(ctx context.Context, lease time.Duration) (string, error) {
	id, ok, err := s.acquire(ctx, Request{Op: OpPsemAcquire, LeaseMS: millis(lease)})
	if err == nil && !ok {
		err = errors.Join(impl.ErrNotObtained, context.DeadlineExceeded)
	}
	return id, err
}

// TryAcquire asks for one permit, waiting at most wait.
func (s *PermitSemaphore) TryAcquire(ctx context.Context, wait, lease time.Duration) (string, bool, error) {
	return s.acquire(ctx, Request{Op: OpPsemTryAcquire, WaitMS: millis(wait), LeaseMS: millis(lease)})
}

// acquire sends an acquire request: ok must carry the permit's id.
func (s *PermitSemaphore) acquire(ctx context.Context, req Request) (string, bool, error) {
	rep, err := s.l.do(ctx, req)
	switch {
	case err != nil:
		return "", false, err
	case rep.Status != StatusOK:
		return "", false, nil
	case rep.PermitID == "":
		return "", false, fmt.Errorf("driver %s: %s: ok without a permit_id (outcome unknown)", s.l.m.opts.name(), req.Op)
	}
	return rep.PermitID, true, nil
}

// Release gives the permit id back; the driver's fail (id not held, or its
// lease ran out) is an error wrapping impl.ErrPermitNotHeld.
func (s *PermitSemaphore) Release(ctx context.Context, id string) error {
	rep, err := s.l.do(ctx, Request{Op: OpPsemRelease, PermitID: id})
	if err != nil {
		return err
	}
	if rep.Status != StatusOK {
		return fmt.Errorf("driver %s: permit %q: %w", s.l.m.opts.name(), id, impl.ErrPermitNotHeld)
	}
	return nil
}

// AddPermits changes the permits by n.
func (s *PermitSemaphore) AddPermits(ctx context.Context, n int) error {
	_, err := s.l.okOnly(ctx, Request{Op: OpPsemAddPermits, Permits: n})
	return err
}

// TrySetPermits sets the permits if the semaphore was unset.
func (s *PermitSemaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return s.l.okOrFail(ctx, Request{Op: OpPsemTrySetPermits, Permits: n})
}

// Available asks for the available permits (the driver's library returns
// the expired ones first).
func (s *PermitSemaphore) Available(ctx context.Context) (int, error) {
	rep, err := s.l.okOnly(ctx, Request{Op: OpPsemAvailable})
	return rep.Count, err
}

// Prepare starts the Maker's driver process (banner and hello) unless it
// runs already.
func (s *PermitSemaphore) Prepare(ctx context.Context) error { return s.l.Prepare(ctx) }
