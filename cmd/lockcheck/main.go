// Command lockcheck runs Jepsen-style correctness checks and benchmarks of
// Redis distributed locks. See `lockcheck help`.
//
// Exit status: 0 when every verdict is as expected (valid for a plain run),
// 1 when a run is invalid (or a verdict is not the expected one), 2 on bad
// input, an infrastructure error (no redis-server, an unreachable Redis, a
// missing or corrupt run directory, a history that could not be written), a
// verdict unknown (a check out of time) or SIGINT/SIGTERM.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// Exit statuses.
const (
	exitValid   = 0
	exitInvalid = 1
	exitUsage   = 2
)

// usageError marks an error caused by the command line (exit 2, with a hint).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env *env, args []string) (int, error)
}

// env is where a command writes; tests replace it.
type env struct {
	stdout, stderr io.Writer
	// terminal says stdout is a terminal (a run draws its live line);
	// stderrTerminal says stderr is (a hunt, matrix or rediscovery prints
	// no progress lines there: env.progress).
	terminal, stderrTerminal bool
	// validateOnly stops a command once its command line is checked
	// (validate.go); only tests set it.
	validateOnly bool
}

func commands() []command {
	return []command{
		{"run", "run a workload against a lock, check the history, write a run directory", runCmd},
		{"hunt", "draw seeds, plans and scenarios until a violation or the budget runs out; print the shrunk reproduction", huntCmd},
		{"bisect", "replay a find over the releases between a good and a bad one: the first release that has it", bisectCmd},
		{"rediscover", "hunt the known bugs of released libraries again (results/known-bugs.json): buggy release found? fixed release clean?", rediscoverCmd},
		{"releases", "a library's releases with the catalogued bugs each has and lockcheck's hunts; LIB@VERSION: one release and the nearest without known bugs", releasesCmd},
		{"check", "re-check a saved run directory", checkCmd},
		{"bench", "benchmark lock kinds and peer libraries side by side on one Redis", benchCmd},
		{"subjects", "list the lock implementations that can be run", subjectsCmd},
		{"workloads", "list the workloads", workloadsCmd},
		{"scenarios", "list the named scenarios (workload, topology, faults, expected verdicts)", scenariosCmd},
		{"nightly", "run every scenario × reference lock × seed; a matrix of verdict vs expected", nightlyCmd},
		{"scoreboard", "run every library people run × every scenario × 5 fresh seeds, rerun the findings, write the scoreboard page", scoreboardCmd},
		{"report", "merge nightly outputs (shards from any number of machines) into one matrix: Markdown, JSON, HTML", reportCmd},
		{"sweep", "remove the nftables tables and temporary directories of lockcheck runs that were killed (for cron)", sweepCmd},
		{"driver", "serve a Go subject over the driver protocol on stdin/stdout (a driver for mixed fleets and overhead runs)", driverCmd},
		{"version", "print lockcheck's module version, Go version and VCS revision", versionCmd},
	}
}

func main() {
	if err := assemble(); err != nil {
		fmt.Fprintln(os.Stderr, "lockcheck:", err)
		os.Exit(exitUsage)
	}
	catalog.ServeFromEnv(catalog.Subjects) // a Go lock's process of its own, for process pauses
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, newEnv(), os.Args[1:]))
}

// newEnv is the env of the binary: the process's stdout and stderr.
func newEnv() *env {
	return &env{stdout: os.Stdout, stderr: os.Stderr, terminal: isTerminal(os.Stdout), stderrTerminal: isTerminal(os.Stderr)}
}

// run dispatches args to a subcommand and maps its result to an exit status.
func run(ctx context.Context, e *env, args []string) int {
	e.shareStderr() // a command's progress printer writes there too
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return run(ctx, e, []string{args[1], "--help"})
		}
		printUsage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitValid
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		if sweepsAtStart[c.name] && !helpAsked(args[1:]) && !e.validateOnly {
			_ = sweepStale(ctx, e) // a warning on stderr: the command goes on
		}
		code, err := c.run(ctx, e, args[1:])
		if err == nil {
			return code
		}
		if errors.Is(err, errHelp) {
			return exitValid
		}
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", c.name, err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(e.stderr, "Run 'lockcheck %s --help' for usage.\n", c.name)
		}
		return exitUsage
	}
	fmt.Fprintf(e.stderr, "lockcheck: unknown command %q\n\n", args[0])
	printUsage(e.stderr)
	return exitUsage
}

func printUsage(w io.Writer) {
	fmt.Fprint(w, `lockcheck checks whether a Redis lock is really a lock.

Usage:
  lockcheck <command> [flags]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Examples:
  lockcheck run                                   # own redis-server, reentrant and fair locks, ~30 s
  lockcheck run --subject fenced --workload counter --duration 10s --seed 7
  lockcheck run --subject mutant-unlock-no-owner-check --duration 10s
  lockcheck run --scenario redis-pause-short --subject fair
  lockcheck run --subject redisson-semaphore@3.16.1 --seed 1   # a semaphore at a Redisson release (workload permits)
  lockcheck scenarios client-stall                # one scenario in detail
  lockcheck hunt --subject fair --budget 10m      # hunt for a violation; prints the shrunk command that reproduces it
  lockcheck releases redisson@3.43.0              # its known bugs, and the nearest release without any
  lockcheck check results/runs/mixed-reentrant/20261122T101500.000-1-42
  lockcheck nightly --seeds 3
  lockcheck nightly --shard 2/4                   # one of 4 machines; then lockcheck report DIR…
  lockcheck bench --quick

Exit status: 0 valid, 1 invalid (or an unexpected verdict), 2 bad input, infrastructure error,
unknown verdict or interrupted.
`)
}
