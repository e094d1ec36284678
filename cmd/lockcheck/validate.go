package main

import (
	"fmt"
	"os"
)

// validateOnlyEnv names the environment variable that, set to 1, makes
// every command that would start redis-servers, drivers' runs, faults or
// files stop once its command line has been checked: flags parsed, names
// looked up (subjects, workloads, scenarios), durations and shards parsed,
// the files it reads loaded. It then exits 0, or 2 with the same error the
// full command would give. The documentation test runs every lockcheck
// command of README.md and docs/ this way (cmd/lockcheck/docs_test.go).
const validateOnlyEnv = "LOCKCHECK_VALIDATE_ONLY"

// validateOnlyFromEnv reports whether validateOnlyEnv asks for it.
func validateOnlyFromEnv() bool { return os.Getenv(validateOnlyEnv) == "1" }

// stopValidated says whether cmd should stop here, its command line
// checked; it says so on stderr when it should.
func (e *env) stopValidated(cmd string) bool {
	if !e.validateOnly {
		return false
	}
	fmt.Fprintf(e.stderr, "lockcheck %s: command line valid; stopping there (%s=1)\n", cmd, validateOnlyEnv)
	return true
}
