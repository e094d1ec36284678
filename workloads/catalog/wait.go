package catalog

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// SyncTimeout is the WAIT timeout of the WAIT-synced subjects.
const SyncTimeout = 200 * time.Millisecond

// waitSubjects lists the reentrant and fair locks with every lock command
// followed by WAIT 1 (impl.WithSyncReplicas): an acquire no replica
// acknowledged is undone and retried. They need a master with replicas
// (the Sentinel topology); without one every acquire is refused.
func waitSubjects() []subject.Subject {
	return []subject.Subject{
		{
			Name: "reentrant-wait", Kind: subject.KindReference, Reentrant: true, Needs: subject.NeedsReplicas,
			Doc: "reentrant lock with WAIT 1 200ms after every lock command (Redisson 3.x syncedEval); needs replicas",
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				return impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease), impl.WithSyncReplicas(1, SyncTimeout))
			},
		},
		{
			Name: "fair-wait", Kind: subject.KindReference, Reentrant: true, Fair: true, QueueTimeout: impl.DefaultThreadWaitTime, Needs: subject.NeedsReplicas,
			Doc: "fair lock with WAIT 1 200ms after every lock command; needs replicas",
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				return impl.FairMaker(impl.WithWatchdogTimeout(o.WatchdogLease), impl.WithSyncReplicas(1, SyncTimeout))
			},
		},
	}
}
