package main

import (
	"context"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/container"
)

// sweepsAtStart are the commands that start redis-servers and firewalls:
// before they do, they remove what killed lockcheck processes left behind.
var sweepsAtStart = map[string]bool{"run": true, "hunt": true, "nightly": true, "bench": true}

// sweepCmd is `lockcheck sweep`: the sweep every resource-creating command
// runs first, alone (for cron after a machine's lockcheck jobs were killed).
func sweepCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "sweep", "sweep", "  lockcheck sweep    # from cron: remove what killed lockcheck runs left\n\n"+
		"Removes the nftables tables and temporary directories of lockcheck processes\n"+
		"that no longer run (named by pid and process start time, so a pid that was\n"+
		"reused does not keep them), and, where a Docker engine answers, the server\n"+
		"containers of those processes. Exit status: 0 swept (or nothing to sweep), 2 some\n"+
		"could not be removed.\n")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	if e.stopValidated("sweep") {
		return exitValid, nil
	}
	err := sweepStale(ctx, e)
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	ids, cerr := container.SweepEngine(cctx)
	if n := len(ids); n > 0 {
		fmt.Fprintf(e.stderr, "lockcheck: removed %d server containers left by lockcheck processes that are gone\n", n)
	}
	if cerr != nil {
		fmt.Fprintf(e.stderr, "lockcheck: warning: sweeping containers: %v\n", cerr)
	}
	if err != nil || cerr != nil {
		return exitUsage, nil
	}
	return exitValid, nil
}

// sweepStale runs faults.SweepStale (bounded to 10 s) and says on stderr
// what it removed; a failure to sweep is a warning (returned), never a
// reason for a run to stop.
func sweepStale(ctx context.Context, e *env) error {
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
	return err
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
