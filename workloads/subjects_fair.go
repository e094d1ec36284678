package workloads

import "github.com/lockcheck/lockcheck/impl"

// fairSubjects lists the fair lock (Redisson RFairLock port).
func fairSubjects() []Subject {
	return []Subject{{
		Name: "fair", Kind: KindReference, Reentrant: true, Fair: true,
		Doc: "Redisson RFairLock port: FIFO queue + deadline zset, per-waiter wake-ups, watchdog",
		Configure: func(o OpenOptions) impl.MakerFunc {
			return impl.FairMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
		},
	}}
}
