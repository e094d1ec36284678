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
// is left for the owner's first op, which meets it again and is recorded.
// Each start is bounded by its Maker's own start bound and by ctx.
func (r *runner) warmUp(ctx context.Context) {
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
			wg.Go(func() { _ = pr.Prepare(ctx) })
		}
	}
	wg.Wait()
}
