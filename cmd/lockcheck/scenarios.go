package main

import (
	"flag"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// referenceSubjects are the lock kinds nightly runs by default (a subject a
// scenario's topology cannot run is skipped there: redlock runs only on the
// redlock topology, reentrant-wait only on Sentinel).
const referenceSubjects = "reentrant,fair,fenced,simple,redlock,reentrant-wait"

// expectation is exp, the expectation of scenario for subject, as a run
// directory records it.
func expectation(scenarioName, subject string, exp scenario.Expect) results.Expectation {
	return results.Expectation{
		Scenario: scenarioName, Subject: subject, Label: exp.Label, Verdict: exp.Verdict,
		Checkers: exp.Checkers, Quiet: exp.Quiet, MayBreak: exp.MayBreak,
	}
}

// scenarioRun checks the flags of `run --scenario` and returns the
// scenario (with --plan and --threads applied) and the subjects.
func (f *runFlags) scenarioRun(fs *flag.FlagSet) (scenario.Scenario, []subject.Subject, error) {
	for _, name := range []string{"workload", "persistence", "clients", "watchdog-lease"} {
		if flagSet(fs, name) {
			return scenario.Scenario{}, nil, usagef("--%s cannot be combined with --scenario: the scenario fixes it", name)
		}
	}
	sc, err := f.lookupScenario()
	if err != nil {
		return scenario.Scenario{}, nil, err
	}
	if f.givenPlan != nil {
		sc.Plan = *f.givenPlan // --plan: the scenario's topology and faults, this plan
	}
	if f.threads > 0 {
		sc.Plan.ThreadsPerProcess = f.threads
	}
	subjects, err := lookupSubjects(f.subjects)
	if err != nil {
		return scenario.Scenario{}, nil, err
	}
	if f.duration < 0 || f.checkTime < 0 {
		return scenario.Scenario{}, nil, usagef("--duration and --check-timeout must not be negative")
	}
	return sc, subjects, nil
}

func lookupSubjects(list string) ([]subject.Subject, error) {
	var out []subject.Subject
	for _, n := range splitList(list) {
		if s, ok := scenario.Named(n); ok {
			out = append(out, s) // a kind with a runner of its own (a semaphore, a latch), by name
			continue
		}
		s, err := catalog.Subjects.Lookup(n)
		if err != nil {
			return nil, usagef("--subject: %v", err)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usagef("--subject: no subject named")
	}
	return out, nil
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// discard is an io.Writer that drops everything (per-run chatter of nightly).
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
