package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/lockcheck/lockcheck/results"
)

// exitInterrupted is the exit status of a run stopped by SIGINT or SIGTERM:
// it decided nothing, like bad input or a broken infrastructure.
const exitInterrupted = exitUsage

// interrupted reports whether the command's ctx ended, which in the CLI
// means SIGINT or SIGTERM (main's signal.NotifyContext).
func interrupted(ctx context.Context) bool { return ctx.Err() != nil }

// reportInterrupted tells the user that the command stopped on a signal,
// after the faults were healed, and where what it had was written. sums
// are the runs' summaries: when the last run finished and only its check
// was interrupted, it says so.
func reportInterrupted(e *env, cmd string, dirs []string, sums []results.Summary) {
	where := "nothing was written"
	if len(dirs) > 0 {
		where = "what ran is in " + strings.Join(dirs, ", ")
	}
	if n := len(sums); n > 0 && sums[n-1].Report.Stopped == "interrupted" && !sums[n-1].Report.Incomplete() {
		fmt.Fprintf(e.stderr, "lockcheck %s: interrupted while checking: the run finished and its history is whole, but the check was stopped before it decided; %s; re-check it with 'lockcheck check DIR' (exit %d)\n",
			cmd, where, exitInterrupted)
		return
	}
	fmt.Fprintf(e.stderr, "lockcheck %s: interrupted: stopped early after healing every fault; %s; nothing was decided (exit %d)\n",
		cmd, where, exitInterrupted)
}
