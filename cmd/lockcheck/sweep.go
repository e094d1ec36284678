package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/faults"
)

// sweepsAtStart are the commands that start redis-servers and firewalls:
// before they do, they remove what killed lockcheck processes left behind.
var sweepsAtStart = map[string]bool{"run": true, "nightly": true, "bench": true}

// sweepStale runs faults.SweepStale (bounded to 10 s) and says on stderr
// what it removed; a failure to sweep is a warning, never a reason to stop.
func sweepStale(ctx context.Context, e *env) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	sw, err := faults.SweepStale(ctx, "")
	for _, t := range sw.Tables {
		fmt.Fprintf(e.stderr, "lockcheck: removed nftables table inet %s left by a lockcheck process that is gone\n", t)
	}
	if n := len(sw.Dirs); n > 0 {
		fmt.Fprintf(e.stderr, "lockcheck: removed %d temporary directories left by lockcheck processes that are gone\n", n)
	}
	if n := len(sw.Clocks); n > 0 {
		fmt.Fprintf(e.stderr, "lockcheck: reset to real time and removed %d clock-shim files left by lockcheck processes that are gone\n", n)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "lockcheck: warning: sweeping what dead runs left: %v\n", err)
	}
}

// helpAsked reports whether args ask for a command's help.
func helpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}
