package scenario

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Lease is the watchdog lease every scenario runs with: faults "shorter than
// the lease" last 0.5–1 s, "longer" ones about 3 s.
const Lease = 1500 * time.Millisecond

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// contendedPlan is the plan of the network and process scenarios: a few
// processes on one lock, blocking and timed acquires, reentry, critical
// sections far shorter than the lease that read-modify-write the protected
// register.
func contendedPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 4, Locks: []string{"s"}, TryLockPercent: 30,
		Wait: workloads.Range{Max: ms(200)}, Hold: workloads.Range{Min: ms(1), Max: ms(20)},
		Think: workloads.Range{Max: ms(10)}, MaxReentry: 1, Counter: true, OpTimeout: 3 * time.Second,
	}
}

// heldPlan keeps the lock held most of the time (sections of 100–350 ms,
// still under a quarter of the lease), so that a fault almost always hits a
// holder.
func heldPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, Locks: []string{"h"},
		Hold: workloads.Range{Min: ms(100), Max: ms(350)}, Think: workloads.Range{Min: ms(5), Max: ms(30)},
		Counter: true, OpTimeout: 5 * time.Second, StrayUnlockPercent: 10,
	}
}

// networkSchedule draws 0.5–1 s faults separated by 0.5–1 s of quiet.
func networkSchedule(w World, n int) (faults.Schedule, error) {
	return faults.RandomSchedule(w.Rand, faults.RandomConfig{
		Faults: n, Total: w.Duration - time.Second,
		Quiet: faults.Range{Min: ms(500), Max: ms(1000)}, Duration: faults.Range{Min: ms(500), Max: ms(1000)},
	})
}

// perLink makes one fault per client link.
func perLink(w World, f func(faults.Link) faults.Fault) []faults.Fault {
	out := make([]faults.Fault, len(w.Env.Links))
	for i, l := range w.Env.Links {
		out[i] = f(l)
	}
	return out
}

// needServer returns the run's redis-server or an error for topologies
// without one.
func needServer(w World) (*faults.Server, error) {
	if w.Env.Server == nil {
		return nil, fmt.Errorf("scenario: this scenario needs a single redis-server topology")
	}
	return w.Env.Server, nil
}

// Catalog returns every named scenario, safe ones first.
func Catalog() []Scenario {
	return append([]Scenario{
		{
			Name: "no-faults", Safe: true, Doc: "the contended workload with no fault at all",
			Permits: true,
			Plan:    contendedPlan(), Duration: 5 * time.Second, Topology: SingleServer(faults.PersistNone),
		},
		{
			Name: "partition-short", Safe: true,
			Permits: true,
			Doc:     "silent black holes (0.5–1 s, shorter than the 1.5 s lease) on one client's path to Redis at a time",
			Plan:    contendedPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				s, err := networkSchedule(w, len(w.Env.Links))
				return perLink(w, faults.BlackHole), s, err
			},
		},
		{
			Name: "partition-timeout", Safe: true,
			Permits: true,
			Doc: "silent black holes of 2.6–3 s on one client's path at a time during the contended workload (sections under 20 ms): " +
				"its requests, a waiter's next attempt (due within the holder's 1.5 s TTL) included, end with the 1 s read timeout, not with the reset of the heal",
			Plan: contendedPlan(), Duration: 9 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
					Faults: len(w.Env.Links), Total: w.Duration - time.Second,
					Quiet: faults.Range{Min: ms(500), Max: ms(1000)}, Duration: faults.Range{Min: ms(2600), Max: ms(3000)},
				})
				return perLink(w, faults.BlackHole), s, err
			},
		},
		{
			Name: "reset-holder-short", Safe: true,
			Permits: true,
			Doc: "every connection of the holder's client reset (TCP RST) once, for 0.3–0.45 s, shorter than a renewal period (a third of the 1.5 s lease): " +
				"its commands fail at once, its unlock among them, a renewal is retried at the next tick, and its hold must end within a lease",
			Plan: heldPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				d := ms(300 + w.Rand.IntN(151))
				return []faults.Fault{holderLinkFault(w, "proxy-reset", faults.Reset)},
					faults.Schedule{{At: time.Second, Duration: d}}, nil
			},
		},
		{
			Name: "latency-short", Safe: true,
			Permits: true,
			Doc:     "300 ms ± 100 ms of reply latency for 0.5–1 s on one client's path at a time",
			Plan:    contendedPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				s, err := networkSchedule(w, len(w.Env.Links))
				return perLink(w, func(l faults.Link) faults.Fault { return faults.Latency(l, ms(300), ms(100)) }), s, err
			},
		},
		{
			Name: "redis-pause-short", Safe: true,
			Permits: true,
			Doc:     "redis-server frozen (SIGSTOP) for 0.5–0.9 s at a time, shorter than the lease",
			Plan:    contendedPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: serverFault(faults.Pause, faults.Range{Min: ms(500), Max: ms(1000)}, faults.Range{Min: ms(500), Max: ms(900)}),
		},
		{
			Name: "restart-aof-always", Safe: true,
			Permits: true,
			Doc:     "redis-server killed (SIGKILL) and restarted after 0.2–0.5 s with appendfsync always, while locks are held",
			Plan:    heldPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistAOFAlways),
			// A kill loses nothing with appendfsync always: a violation
			// here is never explained away by the kill.
			LossyFaults: []string{},
			Faults:      serverFault(faults.KillRestart, faults.Range{Min: ms(700), Max: ms(1200)}, faults.Range{Min: ms(200), Max: ms(500)}),
		},
		{
			Name: "client-crash", Safe: true,
			Permits: true,
			Doc:     "a client crashes without unlocking, mostly while it holds; the others must acquire within the lease (liveness: no wait over 3 s outside fault windows)",
			Plan:    heldPlan(), Duration: 6 * time.Second, MaxWait: model.WaitBound(2 * Lease), Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				targets := w.Clients.Targets()
				fs := make([]faults.Fault, len(targets))
				for i, t := range targets {
					fs[i] = faults.Crash(w.Clients, t)
				}
				s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
					Faults: len(fs), Total: w.Duration - time.Second,
					Quiet: faults.Range{Min: ms(600), Max: ms(1200)}, Duration: faults.Range{Min: ms(5), Max: ms(5)},
				})
				return fs, s, err
			},
		},
		{
			Name: "client-stall", Safe: false,
			Permits: true, Pauses: true,
			Doc: "a holder's process paused (SIGSTOP, wherever its threads are: in its section or between two commands of its release) for about 3.5 s, " +
				"past its 1.5 s lease; a fenced register must reject its stale write",
			Plan: stallPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				targets := w.Clients.Targets()
				t := targets[w.Rand.IntN(len(targets))]
				return []faults.Fault{faults.Stall(w.Clients, t)},
					faults.Schedule{{At: time.Second, Duration: 3500 * time.Millisecond}}, nil
			},
			Expect: func(s subject.Subject) (Expect, bool) {
				return stallExpect(s)
			},
		},
		{
			Name: "restart-no-persistence", Safe: false,
			Doc:  "redis-server without persistence killed and at once restarted empty, every 0.8–1.2 s, while locks are held: every lock (and fencing counter) is forgotten",
			Plan: heldPlan(), Duration: 6 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults:   serverFault(faults.RestartEmpty, faults.Range{Min: ms(800), Max: ms(1200)}, faults.Range{Min: ms(10), Max: ms(10)}),
			Destroys: []string{model.CheckFencing},
		},
		{
			Name: "partition-long", Safe: false,
			Permits: true,
			Doc:     "the holder's path to Redis black-holed for 3 s, twice the lease, while its critical section (3–3.5 s, kept safe only by the watchdog) goes on",
			Plan:    longHoldPlan(), Duration: 4 * time.Second, Topology: SingleServer(faults.PersistNone),
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				return []faults.Fault{holderBlackHole(w)},
					faults.Schedule{{At: 500 * time.Millisecond, Duration: 3 * time.Second}}, nil
			},
			Expect: partitionLongExpect,
		},
		{
			Name: "redis-pause-long-hold", Safe: true,
			Permits: true,
			Doc: "redis-server frozen (SIGSTOP) for 0.6–0.9 s at a time, under the 1 s a renewal every third of the 1.5 s lease leaves in hand, " +
				"while critical sections of 4–5 s go on, kept safe by the watchdog alone: a renewal sent during a pause runs when it ends",
			Plan: pauseLongHoldPlan(), Duration: 10 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipNoWatchdog,
			Faults: serverFault(faults.Pause, faults.Range{Min: ms(400), Max: ms(800)}, faults.Range{Min: ms(600), Max: ms(900)}),
		},
		{
			Name: "client-stall-long-hold", Safe: false,
			Permits: true, Pauses: true,
			Doc: "the next holder's process paused (SIGSTOP, watchdog included, in its section or inside its release) for 2–2.5 s, past its 1.5 s lease, in a run of 2–2.5 s sections " +
				"kept safe by the watchdog alone; then it goes on, and its next holds must be renewed again",
			Plan: stallLongHoldPlan(), Duration: 10 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipNoWatchdog,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				return []faults.Fault{nextHolderStall(w)},
					faults.Schedule{{At: 500 * time.Millisecond, Duration: 4 * time.Second}}, nil
			},
			Expect: stallExpect,
		},
		{
			Name: "process-pause", Safe: true,
			Pauses: true,
			Doc: "the holder's process paused (SIGSTOP) for 2–2.5 s, past its 1.5 s lease, at a moment drawn from the seed: in its section, at a reply of Redis to it, " +
				"or between two commands of its release; every 3–4 s, while sections of 10 ms–1.2 s go on: a pause may cost a correct lock its hold (allowed), " +
				"but a client must not take the lock back after it, nor release another's: nothing beyond the fault",
			Plan: pausePlan(), Duration: 12 * time.Second, Topology: SingleServer(faults.PersistNone), Expect: withinThePause,
			Faults: spacedSchedule(faults.Range{Min: ms(2000), Max: ms(2500)}, faults.Range{Min: ms(1000), Max: ms(1500)}, holderPause),
		},
	}, slices.Concat(wireScenarios(), mixScenarios(), interruptScenarios(), topologyScenarios(), clockScenarios())...)
}

// skipNoWatchdog skips, besides DefaultSkip's, the subjects without a
// watchdog: a section longer than the lease is unsafe for them without
// any fault.
func skipNoWatchdog(s subject.Subject) string {
	if s.NoWatchdog {
		return "no watchdog: a critical section longer than the lease breaks the lock without any fault"
	}
	return DefaultSkip(s)
}

// pauseLongHoldPlan is two processes on one lock with sections of 4–5 s,
// three leases and more, kept safe by the watchdog alone: a keep-alive that
// stops during one of a section's first pauses leaves the hold to run out
// while its holder works.
func pauseLongHoldPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 2, Locks: []string{"pl"},
		Hold: workloads.Range{Min: ms(4000), Max: ms(5000)}, Think: workloads.Range{Max: ms(10)},
		Counter: true, OpTimeout: 12 * time.Second, LongHolds: true,
	}
}

// stallLongHoldPlan is two processes on one lock with sections of 2–2.5 s,
// longer than the lease (kept safe by the watchdog alone) and short enough
// for a stall, the late unlock after it and the stalled process's next hold
// to fit in a run.
func stallLongHoldPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 2, Locks: []string{"sl"},
		Hold: workloads.Range{Min: ms(2000), Max: ms(2500)}, Think: workloads.Range{Max: ms(10)},
		Counter: true, OpTimeout: 10 * time.Second, LongHolds: true,
	}
}

// nextHolderStall stalls the worker that holds the lock next: one that does
// not hold it when the window opens, drawn from the seed each window
// (nonHolder). Clients.Stall freezes it at the start of its next critical
// section, right after its grant, until the window ends; the window names
// that worker.
func nextHolderStall(w World) faults.Fault {
	targets := w.Clients.Targets()
	next := nonHolder(w, len(targets))
	return faults.AtLeast(faults.Chosen("client-stall", func(context.Context) faults.Fault {
		return faults.Stall(w.Clients, targets[next()])
	}), pauseAtLeast)
}

// pauseAtLeast is how long a pause aimed at a holder or the next holder
// lasts at least, however late in its window it found its target: past
// the 1.5 s lease, as the scenarios that make it say (a pause that began
// late was cut short by its window's end, under the lease, on a loaded
// machine: pause-mix seed 2 paused nothing for longer than 1.33 s).
const pauseAtLeast = 2 * time.Second

// pausePlan is three processes on one lock with sections from 10 ms to
// 1.2 s (some outlast a renewal period, so a watchdog renews inside them),
// so that the others wait while a holder is paused and take the lock once
// its lease runs out.
func pausePlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, Locks: []string{"pp"},
		Hold: workloads.Range{Min: ms(10), Max: ms(1200)}, Think: workloads.Range{Max: ms(20)},
		Counter: true, OpTimeout: 8 * time.Second, LongHolds: true,
	}
}

// holderPause pauses the process of the worker that holds the lock when
// each window opens (one drawn from the seed when nobody holds), where the
// seed says: faults.ClientPause with no aim.
func holderPause(w World) faults.Fault {
	targets := w.Clients.Targets()
	fallback := targets[w.Rand.IntN(len(targets))]
	return faults.AtLeast(faults.Chosen("process-pause", func(context.Context) faults.Fault {
		t := fallback
		if h := w.Holders.Holding(); len(h) > 0 && h[0] < len(targets) {
			t = targets[h[0]]
		}
		return faults.ClientPause(w.Clients, t, "")
	}), pauseAtLeast)
}

// withinThePause is process-pause's expectation for every lock but the
// mutants (which keep theirs): a pause past the lease may cost a correct
// lock its hold, so any checker may fire, but nothing beyond the fault.
func withinThePause(s subject.Subject) (Expect, bool) {
	if s.Kind == subject.KindMutant {
		return Expect{}, false
	}
	return Expect{Label: "within the fault", Checkers: map[string]model.Verdict{model.CheckAllowance: model.Valid}, MayBreak: []string{
		model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFairness, model.CheckLiveness, model.CheckContract,
	}}, true
}

// stallPlan is short sections on one lock, so a stall request is met at
// once and the others are waiting when the stalled hold runs out.
func stallPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 3, Locks: []string{"st"},
		Hold: workloads.Range{Min: ms(5), Max: ms(30)}, Think: workloads.Range{Max: ms(10)},
		Counter: true, OpTimeout: 5 * time.Second,
	}
}

// longHoldPlan is two processes on one lock with critical sections longer
// than the lease, kept safe by the watchdog's renewals alone.
func longHoldPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 2, Locks: []string{"lp"},
		Hold: workloads.Range{Min: ms(3000), Max: ms(3500)}, Think: workloads.Range{Max: ms(10)},
		Counter: true, OpTimeout: 10 * time.Second, LongHolds: true,
	}
}

// isFenced says the subject is a reference lock that presents fencing
// tokens to the register: the expectations that use it describe what
// lockcheck's own fenced lock does under a fault, not any fenced library.
func isFenced(s subject.Subject) bool { return s.Kind == subject.KindReference && s.Fenced }

func stallExpect(s subject.Subject) (Expect, bool) {
	if isFenced(s) {
		return ExpectFencesHeld, true
	}
	if s.Kind == subject.KindReference {
		return Expect{Label: "mutex broken", Verdict: ExpectMutexBroken.Verdict, Checkers: map[string]model.Verdict{
			model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Invalid,
		}}, true
	}
	return Expect{}, false
}

func partitionLongExpect(s subject.Subject) (Expect, bool) {
	switch {
	case isFenced(s):
		// The stale holder writes first (its section started long before
		// the new holder's), so its write is accepted, and the new holder's
		// read, made before that write, is lost: fencing only the write
		// cannot save a read-modify-write. The tokens still increase.
		return Expect{Label: "mutex broken, tokens increase, update lost", Verdict: model.Invalid, Checkers: map[string]model.Verdict{
			model.CheckLinearizable: model.Invalid, model.CheckMutualExclusion: model.Invalid, model.CheckFencing: model.Valid,
		}}, true
	case s.Name == "simple":
		return Expect{Label: "detected (no watchdog: unsafe even without the fault)", Verdict: model.Invalid}, true
	}
	return Expect{}, false
}

// holderBlackHole black-holes the path of the client that holds the lock
// when the fault starts (from the history written so far; a worker drawn
// from the seed when nobody holds).
func holderBlackHole(w World) faults.Fault {
	return holderLinkFault(w, "proxy-blackhole", faults.BlackHole)
}

// holderLinkFault is fault (called name) on the link of the client that
// holds the lock when each window opens (a link drawn from the seed when
// nobody holds); the window names that link.
func holderLinkFault(w World, name string, fault func(faults.Link) faults.Fault) faults.Fault {
	fallback := w.Rand.IntN(len(w.Env.Links))
	return faults.Chosen(name, func(context.Context) faults.Fault {
		i := fallback
		if h := w.Holders.Holding(); len(h) > 0 && h[0] < len(w.Env.Links) {
			i = h[0]
		}
		return fault(w.Env.Links[i])
	})
}

// Lookup returns the scenario called name.
func Lookup(name string) (Scenario, error) {
	var names []string
	for _, s := range Catalog() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Scenario{}, fmt.Errorf("%w %q (known: %v)", ErrUnknownScenario, name, names)
}

// Names lists the catalog's scenario names, in order.
func Names() []string { return NamesOf(Catalog()) }

// NamesOf lists the names of scs, in order.
func NamesOf(scs []Scenario) []string {
	out := make([]string, len(scs))
	for i, sc := range scs {
		out[i] = sc.Name
	}
	return out
}

// serverFault is the faults of a scenario that breaks the one server with
// fault, one window at a time: quiet then broken for a span each, drawn from
// the run's seed, until a second before the end.
func serverFault(fault func(*faults.Server) faults.Fault, quiet, broken faults.Range) FaultsFunc {
	return func(w World) ([]faults.Fault, faults.Schedule, error) {
		srv, err := needServer(w)
		if err != nil {
			return nil, nil, err
		}
		s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
			Faults: 1, Total: w.Duration - time.Second, Quiet: quiet, Duration: broken,
		})
		return []faults.Fault{fault(srv)}, s, err
	}
}
