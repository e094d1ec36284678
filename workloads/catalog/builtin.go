// Package catalog lists the lock implementations lockcheck ships: its own
// reference locks (impl), the peer adapters (impl/peers), the external
// drivers (impl/drivers over impl/driver) and the mutants (impl/mutants),
// registered in Subjects. It is the only harness package that imports the
// concrete locks; the runner (workloads) and the benchmark (workloads/bench)
// take a subject.Registry and never import it.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/mutants"
	"github.com/lockcheck/lockcheck/impl/peers"
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

// builtinSubjects lists lockcheck's reference locks, the peer adapters and the
// mutants. Every one has a Configure, so a run's watchdog lease reaches the
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
	s = append(s, RedlockSubject(nil))
	s = append(s, waitSubjects()...)
	for _, p := range peers.All() {
		name := p.Name
		_, linked, _ := moduleVersion(p.Module)(context.Background())
		s = append(s, subject.Subject{
			Name: name, Kind: subject.KindPeer, Doc: p.Doc, NoWatchdog: true, Version: moduleVersion(p.Module), NotScored: tunedNote(p),
			Release: linked, Versions: peerVersions(name, p.Doc, linked),
			Configure: func(o subject.OpenOptions) impl.MakerFunc {
				opts := &peers.Options{WatchdogLease: o.WatchdogLease, Seed: uint64(o.Seed)}
				switch name {
				case "redsync":
					return peers.Redsync(opts)
				case "redsync-tuned":
					return peers.RedsyncTuned(opts)
				case "redislock":
					return peers.Redislock(opts)
				case "redislock-tuned":
					return peers.RedislockTuned(opts)
				}
				return p.Open // a peer added later: its defaults
			},
			WatchdogLease: peers.DefaultWatchdogLease,
		})
	}
	for _, d := range shippedDrivers() {
		s = append(s, d.Subject())
	}
	for _, m := range mutants.All() {
		name := m.Name
		s = append(s, subject.Subject{
			Name: name, Kind: subject.KindMutant, Doc: m.Doc, Catches: m.Catches, Reentrant: true,
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
		Name: "base-no-flaw", Kind: subject.KindReference, Reentrant: true,
		Doc:           "the mutants' base lock without a flaw (a control; not in the catalog)",
		Configure:     func(o subject.OpenOptions) impl.MakerFunc { return mutants.Base(o.WatchdogLease) },
		WatchdogLease: mutants.DefaultWatchdogLease,
	}
}

// tunedNote is a tuned peer's NotScored: the scoreboard has one row per
// library and version, at the defaults people run.
func tunedNote(p peers.Subject) string {
	if p.Tuned == "" {
		return ""
	}
	return "a tuned variant (" + p.Tuned + ") of " + p.Module + ", scored at its defaults"
}

// moduleVersion reports a Go module's version from the build's info.
func moduleVersion(module string) func(context.Context) (string, string, error) {
	return func(context.Context) (string, string, error) {
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return module, "", errors.New("the binary carries no build info")
		}
		for _, d := range bi.Deps {
			if d.Path == module {
				if d.Replace != nil {
					d = d.Replace
				}
				return module, d.Version, nil
			}
		}
		return module, "", fmt.Errorf("%s is not in the build's dependencies", module)
	}
}
