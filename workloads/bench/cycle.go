package bench

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
)

// Cycler is a handle that runs the benchmark's lock/unlock loop itself: an
// external driver with the protocol's cycle request. A window then measures
// the library, not one protocol round trip per call (~70 µs).
type Cycler interface {
	CanCycle() bool
	Cycle(ctx context.Context, d, lease time.Duration, log bool) (driver.CycleResult, error)
}

// cycleWarmup is how long a cycling driver's worker runs its loop on a
// private lock before the window.
const cycleWarmup = time.Second

// cyclerOf returns l as a Cycler when it can cycle.
func cyclerOf(l impl.Locker) (Cycler, bool) {
	c, ok := l.(Cycler)
	if !ok || !c.CanCycle() {
		return nil, false
	}
	return c, true
}

// cycleLog runs worker i's cycle for the rest of the window that began at
// start and returns its grants and its request still open at the end, as
// offsets from start. A cycling driver cannot say when a request was
// queued, so a request is waiting from its call (as for locks that are no
// impl.Enqueuer).
func cycleLog(ctx context.Context, c Cycler, i int, start time.Time, d, lease time.Duration) ([]grant, []request, error) {
	r, err := c.Cycle(ctx, d-time.Since(start), lease, true)
	if err != nil {
		return nil, nil, err
	}
	var log []grant
	for _, g := range r.Grants {
		req := g.Requested.Sub(start)
		log = append(log, grant{worker: i, requested: req, waiting: req, granted: g.Granted.Sub(start), released: g.Released.Sub(start)})
	}
	var open []request
	if !r.Open.IsZero() {
		req := r.Open.Sub(start)
		open = append(open, request{worker: i, requested: req, waiting: req})
	}
	return log, open, nil
}
