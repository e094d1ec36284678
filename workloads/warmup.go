package workloads

import (
	"context"
	"sync"

	"github.com/lockcheck/lockcheck/impl"
)

// warmUp starts, before the run's clock starts, the lock client of every
// owner the run begins with, when its Maker starts clients of their own
// (impl.Readier: a driver process per owner or client process). Without
// it, each first op waited for its process's start-up inside the run: on
// a loaded machine, Python and JVM starts queued behind each other took
// longer than a short run, which then decided nothing. A start that fails
// is left for the owner's first op, which meets it again and is recorded,
// and ends the warm-up: the starts still waiting are left to their owners'
// first ops too, so that a driver that cannot start costs one start bound
// here, not one per owner. Each start is bounded by its Maker's own start
// bound and by ctx.
func (r *runner) warmUp(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	t := r.plan.Threads()
	for id := range r.plan.Owners() {
		conn, client := r.seat(id / t)
		ms := r.makers[conn]
		m := ms[r.partOf(id, client, len(ms))]
		if _, ok := m.(impl.Readier); !ok {
			continue
		}
		if pr, ok := m.NewLocker(r.prefix+r.plan.Locks[0], ownerOf(id)).(impl.Preparer); ok {
			wg.Go(func() {
				if pr.Prepare(ctx) != nil {
					cancel()
				}
			})
		}
	}
	wg.Wait()
}
