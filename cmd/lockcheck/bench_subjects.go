package main

import (
	"strconv"

	"github.com/lockcheck/lockcheck/workloads/bench"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// benchSubjects turns --subjects into the benchmark's subjects, looked up
// in the one registry (bench.Subjects says which it can measure). An empty
// list returns the engine's default subjects.
func benchSubjects(list string) ([]subject.Subject, error) {
	s, err := bench.Subjects(catalog.Subjects, splitList(list))
	if err != nil {
		return nil, usagef("--subjects: %v", err)
	}
	return s, nil
}

// benchWorkers parses --workers: the uncontended cells take every count, the
// contended ones every count of at least 2 (one worker cannot contend).
func benchWorkers(list string) (uncontended, contended []int, err error) {
	return benchCounts("workers", list)
}

// benchCounts parses the counts of --flag (workers or threads) as
// benchWorkers does.
func benchCounts(flag, list string) (uncontended, contended []int, err error) {
	for _, p := range splitList(list) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, nil, usagef("--%s: %q is not a count >= 1", flag, p)
		}
		uncontended = append(uncontended, n)
		if n >= 2 {
			contended = append(contended, n)
		}
	}
	if len(uncontended) == 0 {
		return nil, nil, usagef("--%s: no count given", flag)
	}
	if contended == nil {
		contended = []int{} // an empty, non-nil list skips the contended cells
	}
	return uncontended, contended, nil
}

// benchCustom says why --record refuses a run: the track record holds the
// full default matrix only, so runs stay comparable over time.
func benchCustom(set func(flag string) bool) error {
	for _, f := range []string{"subjects", "workers", "threads", "wire", "duration", "rounds"} {
		if set(f) {
			return usagef("--record takes the full default matrix: drop --%s (custom runs go to a run directory or --out)", f)
		}
	}
	return nil
}
