package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
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
	for i, cfg := range p.configs {
		wp := p.runs[i].Plan()
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

// checkSubjectList rejects a --subject list that names a subject twice
// (each subject's run has a directory of its own: a repeat adds nothing
// but a second run of the same seed) and a mixed fleet whose parts drive
// objects of different kinds (a lock and a semaphore or latch cannot
// share one object).
func checkSubjectList(names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			return usagef("--subject: %s is named twice: name each subject once (a run of the same seed twice adds nothing)", n)
		}
		seen[n] = true
		if err := checkMixKinds(n); err != nil {
			return err
		}
	}
	return nil
}

// checkMixKinds rejects a mixed fleet (A+B) of locks and semaphores or
// latches, naming the parts of each kind.
func checkMixKinds(name string) error {
	parts := strings.Split(name, subject.MixSeparator)
	if len(parts) < 2 {
		return nil
	}
	var sems, locks []string
	for _, p := range parts {
		if scenario.Known(p) { // a kind with a runner of its own: not a lock
			sems = append(sems, p)
		} else {
			locks = append(locks, p)
		}
	}
	if len(sems) == 0 || len(locks) == 0 {
		return nil
	}
	return usagef("--subject %s mixes object kinds: a lock (%s) and a semaphore or latch (%s); the parts of a mixed fleet share one object of one kind",
		name, strings.Join(locks, ","), strings.Join(sems, ","))
}
