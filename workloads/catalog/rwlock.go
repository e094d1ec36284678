package catalog

import (
	"slices"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// rwSubjects are the read-write locks: lockcheck's port of Redisson's
// RReadWriteLock (redisson-rwlock, the real one, is a driver).
func rwSubjects() []subject.Subject {
	return []subject.Subject{{
		Name: "rwlock", Kind: subject.KindReference, Reentrant: true, ReadWrite: true,
		Doc: "Redisson RReadWriteLock port: shared reads, exclusive write, downgrade, per-read-hold timeout keys, watchdog on both sides",
		Configure: func(o subject.OpenOptions) impl.MakerFunc {
			return impl.RWLockMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
		},
	}}
}

// redissonRW adapts a Redisson driver entry to the read-write lock: no
// cycle capability (the driver's cycle request takes one side only).
func redissonRW(d Driver) Driver {
	d.Capabilities = slices.DeleteFunc(d.Capabilities, func(c string) bool { return c == driver.CapCycle })
	return d
}
