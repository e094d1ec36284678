package workloads

import (
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// SyncTimeout is the WAIT timeout of the WAIT-synced subjects.
const SyncTimeout = 200 * time.Millisecond

// waitSubjects lists the reentrant and fair locks with every lock command
// followed by WAIT 1 (impl.WithSyncReplicas): an acquire no replica
// acknowledged is undone and retried. They need a master with replicas
// (the Sentinel topology); without one every acquire is refused.
func waitSubjects() []Subject {
	return []Subject{
		{
			Name: "reentrant-wait", Kind: KindReference, Reentrant: true, Needs: NeedsReplicas,
			Doc: "reentrant lock with WAIT 1 200ms after every lock command (Redisson 3.x syncedEval); needs replicas",
			Configure: func(o OpenOptions) impl.MakerFunc {
				return impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease), impl.WithSyncReplicas(1, SyncTimeout))
			},
		},
		{
			Name: "fair-wait", Kind: KindReference, Reentrant: true, Fair: true, Needs: NeedsReplicas,
			Doc: "fair lock with WAIT 1 200ms after every lock command; needs replicas",
			Configure: func(o OpenOptions) impl.MakerFunc {
				return impl.FairMaker(impl.WithWatchdogTimeout(o.WatchdogLease), impl.WithSyncReplicas(1, SyncTimeout))
			},
		},
	}
}
