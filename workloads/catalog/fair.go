package catalog

import (
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// fairSubjects lists the fair lock (Redisson RFairLock port).
func fairSubjects() []subject.Subject {
	return []subject.Subject{{
		Name: "fair", Kind: subject.KindReference, Reentrant: true, Fair: true, QueueTimeout: impl.DefaultThreadWaitTime,
		Doc: "Redisson RFairLock port: FIFO queue + deadline zset, per-waiter wake-ups, watchdog",
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			return impl.FairMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
		},
	}}
}
