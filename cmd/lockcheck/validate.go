package main

import "fmt"

// stopValidated says whether cmd should stop here, its command line
// checked; it says so on stderr when it should.
//
// env.validateOnly is a switch of the tests alone (the binary has no flag
// or variable that sets it): every command that would start
// redis-servers, drivers' runs, faults or files stops once its command
// line has been checked (flags parsed, names looked up, durations and
// shards parsed, the files it reads loaded) and exits 0, or 2 with the
// same error the full command would give. The documentation test runs
// every lockcheck command of README.md and docs/ this way
// (cmd/lockcheck/docs_test.go).
func (e *env) stopValidated(cmd string) bool {
	if !e.validateOnly {
		return false
	}
	fmt.Fprintf(e.stderr, "lockcheck %s: command line valid; stopping there (validate-only)\n", cmd)
	return true
}
