package scenario

import (
	"context"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
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
			Plan: mixPlan(), Duration: 20 * time.Second, Topology: SingleServerWired(faults.PersistNone), Skip: skipNoWatchdog, Expect: withinTheFault,
			Faults: func(w World) ([]faults.Fault, faults.Schedule, error) {
				fs := mixFaults(w)
				s, err := faults.RandomSchedule(w.Rand, faults.RandomConfig{
					Faults: len(fs), Total: w.Duration - time.Second,
					Quiet: faults.Range{Min: ms(500), Max: ms(1000)}, Duration: faults.Range{Min: ms(300), Max: ms(600)},
				})
				return fs, s, err
			},
		},
	}
}

// mixFaults are wire-mix's faults, each aimed as in its own scenario.
func mixFaults(w World) []faults.Fault {
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
