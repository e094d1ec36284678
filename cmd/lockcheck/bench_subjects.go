package main

import (
	"strconv"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/bench"
)

// benchSubjects turns --subjects into the benchmark's subjects, in the order
// given: any registered subject that runs on one Redis (reference, peer,
// mutant, a user's Go lock, or an external driver, which then runs one driver
// process per worker). A mixed fleet or a subject that needs another
// topology (RedLock nodes, replicas) is refused with the reason. An empty
// list returns nil: the engine's default subjects.
func benchSubjects(list string) ([]bench.Subject, error) {
	names := splitList(list)
	if len(names) == 0 {
		return nil, nil
	}
	var out []bench.Subject
	for _, n := range names {
		s, err := workloads.Subjects.Lookup(n)
		if err != nil {
			return nil, usagef("--subjects: %v", err)
		}
		switch {
		case len(s.Parts) > 0:
			return nil, usagef("--subjects: %s is a mixed fleet; bench measures one subject at a time (list its parts instead)", n)
		case s.Needs != "" && s.Needs != workloads.NeedsOneAddress:
			return nil, usagef("--subjects: %s needs a %s topology; bench runs on one Redis", n, s.Needs)
		}
		open, _ := s.MakerFor(workloads.OpenOptions{WatchdogLease: impl.DefaultWatchdogTimeout})
		out = append(out, bench.Subject{Name: s.Name, Doc: s.Doc, Open: open, Fair: s.Fair})
	}
	return out, nil
}

// benchWorkers parses --workers: the uncontended cells take every count, the
// contended ones every count of at least 2 (one worker cannot contend).
func benchWorkers(list string) (uncontended, contended []int, err error) {
	for _, p := range splitList(list) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, nil, usagef("--workers: %q is not a worker count >= 1", p)
		}
		uncontended = append(uncontended, n)
		if n >= 2 {
			contended = append(contended, n)
		}
	}
	if len(uncontended) == 0 {
		return nil, nil, usagef("--workers: no worker count given")
	}
	if contended == nil {
		contended = []int{} // an empty, non-nil list skips the contended cells
	}
	return uncontended, contended, nil
}

// benchCustom says why --record refuses a run: the track record holds the
// full default matrix only, so runs stay comparable over time.
func benchCustom(set func(flag string) bool) error {
	for _, f := range []string{"subjects", "workers", "duration", "rounds"} {
		if set(f) {
			return usagef("--record takes the full default matrix: drop --%s (custom runs go to a run directory or --out)", f)
		}
	}
	return nil
}
