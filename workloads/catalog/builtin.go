// Package catalog lists the lock implementations lockcheck ships: its own
// reference locks (impl), the external drivers (impl/drivers over
// impl/driver) and the mutants (impl/mutants), registered in Subjects; the
// Go peer adapters (impl/peers) join Subjects when gopeers.Register adds
// them (the CLI does when it assembles itself), so that a library user of
// locktest does not build redsync and redislock. Catalog and gopeers
// are the only harness packages that import the concrete locks; the runner
// (workloads) and the benchmark (workloads/bench) take a subject.Registry
// and never import them.
package catalog

import (
	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/mutants"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Subjects is the registry of every subject lockcheck ships, under the
// names `lockcheck subjects` lists. Code outside this module adds its own
// lock with Subjects.Register and can then run every workload, scenario,
// checker and benchmark against it.
var Subjects = mustRegistry(builtinSubjects())

func mustRegistry(subjects []subject.Subject) *subject.Registry {
	r, err := subject.NewRegistry(subjects...)
	if err != nil {
		panic(err)
	}
	return r
}

// builtinSubjects lists lockcheck's reference locks, the external drivers
// and the mutants. Every one has a Configure, so a run's watchdog lease reaches the
// lock (and the checker assumes the same lease).
func builtinSubjects() []subject.Subject {
	s := []subject.Subject{
		{
			Name: "reentrant", Kind: subject.KindReference, Reentrant: true,
			Doc: "Redisson RLock port: hash + Lua, pub/sub wake-ups bounded by the TTL, watchdog",
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				return impl.ReentrantMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
			},
		},
		{
			Name: "fenced", Kind: subject.KindReference, Reentrant: true, Fenced: true,
			Doc: "Redisson RFencedLock port: the reentrant lock plus a fencing token (INCR) per grant",
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				return impl.FencedMaker(impl.WithWatchdogTimeout(o.WatchdogLease))
			},
		},
		{
			Name: "simple", Kind: subject.KindReference, NoWatchdog: true,
			Doc: "single-key SET NX PX lock, compare-and-delete unlock, bounded polling; no watchdog (lease <= 0: the run's watchdog lease)",
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				return impl.SimpleMaker(impl.WithSimpleLease(o.WatchdogLease), impl.WithSimpleSeed(uint64(o.Seed)))
			},
		},
	}
	s = append(s, fairSubjects()...)
	s = append(s, rwSubjects()...)
	s = append(s, multiLockSubjects()...)
	s = append(s, RedlockSubject(nil))
	s = append(s, waitSubjects()...)
	for _, d := range shippedDrivers() {
		s = append(s, d.Subject())
	}
	for _, m := range mutants.All() {
		name := m.Name
		s = append(s, subject.Subject{
			Name: name, Kind: subject.KindMutant, Doc: m.Doc, Catches: m.Catches, Reentrant: true, ReadWrite: m.ReadWrite,
			Served:  m.Plain(),
			Members: m.Members, SplitVotes: m.Members > 0 || m.Quorum, WaitSpent: m.Members > 0 || m.Quorum, SplitWait: quorumSplitWait(m.Quorum),
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				for _, mm := range mutants.AllWithLease(o.WatchdogLease) {
					if mm.Name == name {
						return mm.Open
					}
				}
				panic("mutant " + name + " vanished from mutants.AllWithLease")
			},
			WatchdogLease: mutants.DefaultWatchdogLease,
		})
	}
	return s
}

// MutantBase is the base every mutant is built on, without a flaw, as a
// subject that no registry holds: the control of the runs that catch the
// mutants (a catch is the flaw's only if the same run passes the base).
func MutantBase() subject.Subject {
	return subject.Subject{
		Name: "base-no-flaw", Kind: subject.KindReference, Reentrant: true, Served: true,
		Doc:           "the mutants' base lock without a flaw (a control; not in the catalog)",
		Configure:     func(o subject.OpenOptions) impl.MakerFunc { return mutants.Base(o.WatchdogLease) },
		WatchdogLease: mutants.DefaultWatchdogLease,
	}
}
