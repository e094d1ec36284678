package main

import (
	"fmt"

	"github.com/lockcheck/lockcheck/workloads/bench"
)

// fairPageCmd is `lockcheck bench --fair-page DIR --from RUN/latest.json`:
// the fair vs non-fair page of a run measured before, without measuring.
func fairPageCmd(e *env, dir, from string) (int, error) {
	rep, err := bench.ReadReport(from)
	if err != nil {
		return exitUsage, usagef("--from: %v", err)
	}
	return writeFairPage(e, rep, dir)
}

// writeFairPage writes rep's fair vs non-fair page into dir (--fair-page).
func writeFairPage(e *env, rep *bench.Report, dir string) (int, error) {
	if err := rep.WriteFairPage(dir); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stderr, "fair vs non-fair page written to %s/%s\n", dir, bench.FairPage)
	return exitValid, nil
}
