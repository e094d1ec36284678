package locktest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/lockcheck/lockcheck/impl"
	"github.com/lockcheck/lockcheck/impl/driver"
)

const serveFlagName = "locktest.serve"

// serveFlag makes Run serve its lock over lockcheck's driver protocol
// instead of testing it: the rerun line of a failure runs the kept test
// binary so, as `lockcheck run --driver`.
var serveFlag = flag.Bool(serveFlagName, false, "locktest: serve the lock of the test's locktest.Run on stdin/stdout over lockcheck's driver protocol, then exit (for `lockcheck run --driver`)")

// serve serves lock on stdin/stdout until stdin ends, then exits the
// process: 0, or 1 after an error.
func serve(lock Lock) {
	err := lock.validate()
	if err == nil {
		err = driver.Serve(context.Background(), os.Stdin, os.Stdout, driver.Served{
			Banner: driver.Banner{Driver: "locktest", Version: lock.Name, Capabilities: lock.capabilities()},
			Open:   func(watchdog time.Duration, _ int64) impl.MakerFunc { return lock.open(watchdog) },
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "locktest:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// serveCommand returns the command that serves the lock of test's Run or
// Hunt in a process of its own: this test binary, running that test alone
// with -locktest.serve (and the user's own flags). Every run serves the
// lock so, one process per client, so that a pause stops the process
// wherever its threads are, and a crash or a retirement kills it: no lock
// needs a hook for lockcheck's faults to reach it.
func serveCommand(test string) func(string) (argv, env []string, err error) {
	return func(string) ([]string, []string, error) {
		exe, err := os.Executable()
		if err != nil {
			return nil, nil, err
		}
		argv := append([]string{exe, "-test.run=" + runPattern(test), "-" + serveFlagName}, userFlags()...)
		// GORACE: a race-enabled binary otherwise sleeps 1 s at exit.
		return argv, []string{"GORACE=atexit_sleep_ms=0"}, nil
	}
}

// capabilities are lock's claims as a driver announces them.
func (l Lock) capabilities() []string {
	var caps []string
	for _, c := range []struct {
		claimed bool
		name    string
	}{{l.Reentrant, driver.CapReentrant}, {l.Fair, driver.CapFair}, {l.Fenced, driver.CapFenced}, {l.Watchdog, driver.CapWatchdog}} {
		if c.claimed {
			caps = append(caps, c.name)
		}
	}
	return caps
}
