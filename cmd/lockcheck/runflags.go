package main

import (
	"flag"
	"fmt"
)

// checkRunFlags rejects `run` flags whose value means nothing useful, with
// an error naming the flag, before anything starts. Flags left at their
// default are not checked here (plan() fills their defaults).
func checkRunFlags(fs *flag.FlagSet, f *runFlags) error {
	if flagSet(fs, "duration") && f.duration == 0 {
		return usagef("--duration 0: want a positive duration, e.g. 10s (leave --duration out for the default: 30s, or the scenario's)")
	}
	if f.planFile != "" {
		p, err := loadPlanFile(f.planFile)
		if err != nil {
			return usageError{err}
		}
		f.givenPlan = &p
	}
	return nil
}

// checkClients rejects a --clients above the number of processes of a
// plan (each client connection serves at least one process; more would be
// opened and never used) and says how the processes share fewer.
func checkClients(e *env, p runPlan, clients int) error {
	if clients == 0 {
		return nil
	}
	for _, cfg := range p.configs {
		wp, err := cfg.ResolvePlan()
		if err != nil {
			return usageError{err}
		}
		if clients > wp.Processes {
			return usagef("--clients %d: the %s workload runs %d processes, and each client connection serves at least one: want 1..%d (0: one per process)",
				clients, cfg.Workload, wp.Processes, wp.Processes)
		}
		if clients < wp.Processes {
			fmt.Fprintf(e.stderr, "lockcheck run: --clients %d: %s's %d processes share %d client connections (round-robin)\n",
				clients, cfg.Subject, wp.Processes, clients)
		}
	}
	return nil
}
