package scenario

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// mixScenarios are the scenarios whose nemesis draws each window's fault
// from several single-client faults, as Jepsen's composed nemeses do: one
// run meets the triggers that the scenarios named in Mixes each meet
// alone, so a short hunt that draws it early sees all of them.
func mixScenarios() []Scenario {
	return []Scenario{
		{
			Name: "wire-mix", Safe: true,
			Mixes: []string{"renewal-refused", "slow-reply", "client-conn-kill"},
			Doc: "one client fault a window, drawn from the seed each window: the holder's next lock command refused (its renewal or its unlock; " +
				"no fault when nobody holds), a waiter's reply held 2 s (past its client's 1 s timeout), " +
				"or every connection of the holder killed (at once, or in place of its next reply); over contended sections of 20–300 ms " +
				"and long holds of 2.2–2.6 leases kept by the watchdog alone: each fault is one a correct lease lock survives, " +
				"within the allowance its own scenario gives it",
			Plan: mixPlan(), Duration: 20 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipNoWatchdog, Expect: withinTheFault,
			Faults: mixSchedule(wireMixFaults, faults.Range{Min: ms(500), Max: ms(1000)}, faults.Range{Min: ms(300), Max: ms(600)}),
		},
		{
			Name: "pause-mix", Safe: true, Pauses: true,
			Mixes: []string{"process-pause", "client-stall-long-hold"},
			Doc: "one client pause a window, past the 1.5 s lease (2–2.5 s), drawn from the seed each window: the holder's process paused (SIGSTOP) " +
				"where the seed says (in its section, at a reply of Redis to it, or between two commands of its release), or the next holder's process " +
				"paused right after its grant; over contended sections of 20–300 ms and long holds of 2.2–2.6 leases kept by the watchdog alone: " +
				"a pause may cost the paused process its hold (allowed), but a client must not take the lock back after it, release another's, " +
				"or leave its next hold unrenewed: nothing beyond the fault",
			Plan: pauseMixPlan(), Duration: 20 * time.Second, Topology: SingleServer(faults.PersistNone), Skip: skipUnpausable, Expect: withinThePause,
			Faults: mixSchedule(pauseMixFaults, faults.Range{Min: ms(1000), Max: ms(1500)}, faults.Range{Min: ms(2000), Max: ms(2500)}),
		},
	}
}

// mixSchedule is a mix's nemesis: the faults nemesis makes, one drawn from
// the seed for each window of length d, with quiet before each.
func mixSchedule(nemesis func(World) []faults.Fault, quiet, d faults.Range) func(World) ([]faults.Fault, faults.Schedule, error) {
	return func(w World) ([]faults.Fault, faults.Schedule, error) {
		fs := nemesis(w)
		s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{Faults: len(fs), Total: w.Duration - time.Second, Quiet: quiet, Duration: d})
		return fs, s, err
	}
}

// wireMixFaults are wire-mix's faults, each aimed as in its own scenario.
func wireMixFaults(w World) []faults.Fault {
	return []faults.Fault{
		heldWireFault(w, "refuse-once", refuseOnce),
		waiterSlowReply(w),
		holderKill(w),
	}
}

// heldWireFault is fault (called name) on the Wire of the client that holds
// the lock when each window opens, and no fault when nobody holds (the
// window then names no client): a refusal aimed at a holder's renewal or
// unlock must not land on an acquire, which it would answer with an error
// the lock did not give.
func heldWireFault(w World, name string, fault func(*faults.Wire) faults.Fault) faults.Fault {
	return faults.Chosen(name, func(context.Context) faults.Fault {
		if x, ok := holdingWire(w); ok {
			return fault(x)
		}
		return faults.Func(name, "", func(context.Context) error { return nil }, func(context.Context) error { return nil })
	})
}

// mixPlan is four processes on one lock, with no reentry (a refusal aimed
// at the holder must meet its renewal or its unlock): contended sections
// of 20–300 ms (a waiter's attempt often finds the lock taken) between
// long-hold phases, in which one process holds 2.2–2.6 watchdog leases,
// kept by its renewals alone, while the others wait (wire-mix skips a
// lock with no watchdog, as renewal-refused and client-conn-kill do).
func mixPlan() workloads.Plan {
	return workloads.Plan{
		Processes: 4, Locks: []string{"mix"}, TryLockPercent: 30,
		Wait: workloads.Range{Min: ms(200), Max: ms(1500)}, Hold: workloads.Range{Min: ms(20), Max: ms(300)},
		Think: workloads.Range{Max: ms(10)}, Counter: true, OpTimeout: 6 * time.Second,
		Phases: &workloads.Phases{
			Churn:    workloads.Range{Min: ms(2000), Max: ms(3000)},
			LongHold: workloads.Scale{Min: 2.2, Max: 2.6},
		},
	}
}

// pauseMixFaults are pause-mix's faults, each aimed as in its own
// scenario: process-pause's holder pause and client-stall-long-hold's
// next-holder stall.
func pauseMixFaults(w World) []faults.Fault {
	return []faults.Fault{holderPause(w), nextHolderStall(w)}
}

// pauseMixPlan is mixPlan with three processes, so that a paused process
// is often the long holder of a later phase (a late unlock's effect on the
// handle's next watchdog hold shows there).
func pauseMixPlan() workloads.Plan {
	p := mixPlan()
	p.Processes, p.Locks = 3, []string{"pmix"}
	return p
}

// skipUnpausable skips, besides skipNoWatchdog's, the subjects whose lock
// clients a run cannot pause for real (workloads.Unpausable: a read-write
// lock, a multilock, a mixed fleet): their stall is cooperative and ends
// the hold's renewal for good, which no pause does, so the pause's
// allowance does not fit it (a stall cut short by its window then leaves
// a hold to run out that a pause would have let renew).
func skipUnpausable(s subject.Subject) string {
	if why := workloads.Unpausable(s, pauseMixPlan()); why != "" {
		return "its clients cannot be paused for real (" + why + "), and a cooperative stall ends the hold's renewal for good"
	}
	return skipNoWatchdog(s)
}
