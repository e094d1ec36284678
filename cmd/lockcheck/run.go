package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// runFlags are the flags of `lockcheck run`.
type runFlags struct {
	subjects    string
	workload    string
	duration    time.Duration
	seed        int64
	clients     int
	threads     int
	shared      bool
	forms       bool
	wire        bool
	redis       string
	persistence string
	out         string
	asJSON      bool
	watchdog    time.Duration
	checkTime   time.Duration
	maxWait     model.WaitBound
	scenario    string
	planFile    string
	givenPlan   *workloads.Plan // --plan's (or a hunt's): replaces the workload's plan for the seed
	remote      remoteFlags
	driver      driverFlags
	engine      engineFlags
}

const runExamples = `  lockcheck run                                        # reentrant and fair, default workload, ~30 s in all
  lockcheck run --subject fenced --workload counter --duration 10s --seed 7
  lockcheck run --subject reentrant,fair,simple --duration 5s --json
  lockcheck run --subject mutant-unlock-no-owner-check --duration 10s   # exits 1: caught
  lockcheck run --redis redis://user:secret@10.0.0.5:6379/0 --subject reentrant
  lockcheck run --scenario client-stall --subject fenced --seed 3      # exits 0: the violation was detected as expected
  lockcheck run --subject mutant-check-then-set --seed 9 --duration 2s --plan plan.json   # a plan a hunt shrank
  lockcheck run --subject redisson --threads-per-process 8 --duration 10s   # each process: 8 threads on one RedissonClient
  lockcheck run --subject redisson-semaphore@3.16.1 --seed 3     # a semaphore (workload permits) at a Redisson release
`

// add registers run's flags on fs.
func (f *runFlags) add(fs *flag.FlagSet) {
	fs.StringVar(&f.subjects, "subject", "reentrant,fair", "comma-separated subjects to run (see 'lockcheck subjects'; semaphores and latches, which run the permits workload: docs/locks.md)")
	fs.StringVar(&f.workload, "workload", "", "workload (see 'lockcheck workloads'; default: "+workloads.DefaultWorkload+", or hunt when every subject is a mutant)")
	fs.DurationVar(&f.duration, "duration", 0, "total duration, split evenly over the subjects (default 30s)")
	fs.Int64Var(&f.seed, "seed", 0, "seed for every random choice (default: derived from the clock, printed)")
	fs.IntVar(&f.clients, "clients", 0, "go-redis client connections, each its own lock client (0: one per process)")
	fs.BoolVar(&f.shared, "shared-objects", false, "each client process keeps one lock object per name, reused by every request of all its owners, as an application keeps a lock in a field (a Redisson RLock); only drivers with capability shared-objects (default: a new object per request)")
	fs.BoolVar(&f.forms, "call-forms", false, "each acquire and release is made in one of the call forms the library offers (units, sentinel waits, thread-bound or async calls), drawn from the seed and recorded in the history; only drivers with capability forms (default: the driver's one form)")
	fs.IntVar(&f.threads, "threads-per-process", 0, "owners per client process, sharing its one client instance as an application's threads do (Java threads, node and Python tasks, goroutines on one go-redis client); the plan's processes each host this many (0: the plan's, usually 1)")
	fs.StringVar(&f.redis, "redis", "", "use an existing Redis (host:port or redis[s]://[user:pass@]host:port/db) instead of starting redis-server")
	fs.StringVar(&f.persistence, "persistence", "none", "persistence of the redis-server lockcheck starts: none, aof-everysec or aof-always")
	fs.StringVar(&f.out, "out", "results", "base directory for run directories, each new, one per run: <out>/runs/<workload>-<subject>/<time>-<n>-<seed>, or <out>/runs/<scenario>/<time>-<n>-<seed>-<subject> under --scenario (<time>: UTC to the millisecond; <n>: 1, or the next free number)")
	fs.BoolVar(&f.asJSON, "json", false, "print the summaries as JSON instead of a table")
	fs.BoolVar(&f.wire, "wire", true, "trace every command of every client through a RESP proxy into the run directory (wire.jsonl): the checkers' evidence (reconnections, a watchdog that gave up, the commands quoted); every scenario has it (on Sentinel and Cluster only for clients in lockcheck's own process); --wire=false runs plain runs direct, one loopback hop less per command")
	fs.DurationVar(&f.watchdog, "watchdog-lease", 0, "lease of watchdog-renewed holds (default 1.5s: retired holds run out fast)")
	fs.Var(&f.maxWait, "max-wait", "liveness: an acquire that waits longer than this outside every fault window is a violation; \"off\": no bound; \"derived\" (the default): 2 leases of waiting on a free lock outside faults, derived from the run's leases (plans with quiet phases, such as hunt's, also bound one stretch of waiting on a free lock to 500ms)")
	fs.DurationVar(&f.checkTime, "check-timeout", 0, "bound on the whole check: every checker and its explanations (default 60s; then the verdict is unknown, exit 2)")
	fs.StringVar(&f.scenario, "scenario", "", "run a named scenario (see 'lockcheck scenarios'): it fixes workload, topology and faults; --duration is then each subject's run")
	fs.StringVar(&f.planFile, "plan", "", "run this plan (a JSON workloads.Plan, such as the plan.json of 'lockcheck hunt' or of a locktest failure) instead of the workload's plan for the seed; with --scenario, instead of the scenario's plan (its topology and faults stay)")
	f.remote.add(fs)
	f.driver.add(fs)
	f.engine.add(fs)
}

// runCmd is `lockcheck run`: every subject's run, whatever its kind and
// with or without --scenario, through the one run path (runJob).
func runCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "run", "run [flags]", runExamples)
	var f runFlags
	f.add(fs)
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	job, err := f.resolve(ctx, e, fs)
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("run") {
		return exitValid, nil
	}
	return job.run(ctx, e, &f)
}

// printSummaries prints the runs' summaries as a table followed by their
// run directories, or as JSON.
func printSummaries(e *env, sums []results.Summary, dirs []string, asJSON bool) error {
	if asJSON {
		return results.WriteJSON(e.stdout, sums)
	}
	if err := results.Render(e.stdout, sums); err != nil {
		return err
	}
	for _, d := range dirs {
		fmt.Fprintf(e.stdout, "run directory: %s\n", d)
	}
	return nil
}

// runPlan is a validated `run` command line of locks on one Redis: per
// subject, its configuration (defaults filled in) and its run, resolved.
type runPlan struct {
	configs  []workloads.RunConfig
	runs     []workloads.Resolved
	subjects []subject.Subject
	each     time.Duration
}

func (f *runFlags) plan() (runPlan, error) {
	names := splitList(f.subjects)
	if len(names) == 0 {
		return runPlan{}, usagef("--subject: no subject named")
	}
	subjects, err := f.checkNeeds(names)
	if err != nil {
		return runPlan{}, err
	}
	if f.workload == "" {
		f.workload = f.planWorkload()
	}
	if f.workload == "" {
		f.workload = defaultWorkload(names)
	}
	if _, err := workloads.LookupWorkload(f.workload); err != nil {
		return runPlan{}, usagef("--workload: %v", err)
	}
	total := f.duration
	if total == 0 {
		total = 30 * time.Second
	}
	if total < 0 {
		return runPlan{}, usagef("--duration: %v is negative", total)
	}
	each := total / time.Duration(len(names))
	if each < 100*time.Millisecond {
		return runPlan{}, usagef("--duration: %v is too short for %d subject(s) (want at least 100ms each)", total, len(names))
	}
	if err := f.checkCounts(); err != nil {
		return runPlan{}, err
	}
	if f.seed == 0 {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	p := runPlan{subjects: subjects, each: each}
	for _, n := range names {
		cfg := workloads.DefaultRunConfig()
		cfg.Subject, cfg.Workload, cfg.Seed, cfg.Duration, cfg.Clients = n, f.workload, f.seed, each, f.clients
		cfg.ThreadsPerProcess, cfg.SharedObjects, cfg.CallForms = f.threads, f.shared, f.forms
		if f.watchdog > 0 {
			cfg.WatchdogLease = f.watchdog
		}
		if f.checkTime > 0 {
			cfg.CheckTimeout = f.checkTime
		}
		cfg.MaxWait = f.maxWait
		cfg.Plan = f.givenPlan
		rc, err := cfg.Resolve()
		if err != nil {
			return runPlan{}, usageError{err}
		}
		p.configs, p.runs = append(p.configs, rc.Config()), append(p.runs, rc)
	}
	return p, nil
}

// checkNeeds checks that each subject of names exists and that the Redis
// the flags give has the topology it needs, and returns the subjects.
func (f *runFlags) checkNeeds(names []string) ([]subject.Subject, error) {
	var out []subject.Subject
	for _, n := range names {
		subj, err := catalog.Subjects.Lookup(n)
		if err != nil {
			return nil, usagef("--subject: %v", err)
		}
		out = append(out, subj)
		switch {
		case subj.Needs == subject.NeedsReplicas && f.remote.sentinel == "":
			return nil, usagef("--subject %s needs a master with replicas: give --sentinel and --master, or run a Sentinel scenario (lockcheck scenarios)", n)
		case subj.Needs == subject.NeedsRedlockNodes && f.remote.redlockNodes == "":
			return nil, usagef("--subject %s needs independent nodes: give --redlock-nodes, or run a redlock scenario (lockcheck scenarios)", n)
		}
	}
	return out, nil
}

// checkCounts checks --clients, --threads-per-process, --watchdog-lease
// and --check-timeout.
func (f *runFlags) checkCounts() error {
	if f.clients < 0 {
		return usagef("--clients: %d is negative", f.clients)
	}
	if f.threads < 0 || f.threads > workloads.MaxThreadsPerProcess {
		return usagef("--threads-per-process: %d: want 1..%d (0: the plan's)", f.threads, workloads.MaxThreadsPerProcess)
	}
	if f.watchdog < 0 || f.checkTime < 0 {
		return usagef("--watchdog-lease and --check-timeout must not be negative")
	}
	return nil
}

// dropEmptyRun removes the run directory dir of a run that failed, or was
// stopped, before it recorded an op (its clients or drivers did not
// start): such a directory holds no evidence. It says so on w, naming an
// interrupted start as such.
func dropEmptyRun(ctx context.Context, w io.Writer, dir string) {
	removed, err := results.RemoveEmptyRun(dir)
	switch {
	case err != nil:
		fmt.Fprintf(w, "lockcheck run: %s: %v\n", dir, err)
	case removed && interrupted(ctx):
		fmt.Fprintf(w, "lockcheck run: interrupted before the run recorded an op: %s removed\n", dir)
	case removed:
		fmt.Fprintf(w, "lockcheck run: the run recorded no op: %s removed\n", dir)
	}
}

// runIn runs cfg with deps into dir, as runInto does.
func runIn(ctx context.Context, e *env, cfg workloads.RunConfig, dir string, deps workloads.Deps) (sum results.Summary, _ string, degraded, err error) {
	rc, err := cfg.Resolve()
	if err != nil {
		return results.Summary{}, "", nil, err
	}
	r := scenario.Run{Subject: cfg.Subject, Seed: cfg.Seed, Lock: &rc, Deps: deps, Redis: cfg.Redis}
	out, err := runInto(ctx, e, subject.Subject{Name: cfg.Subject}, r, rc.Config().Duration, dir)
	return out.Summary, out.Dir, out.Degraded, err
}

// runInto runs r for subj into dir (scenario.RunInto, the one run path of
// every kind) and prints what the run left to say; off a terminal, a
// progress line every progressEvery on stderr (the run planned to last
// planned). r.History, if set, also receives the history. The outcome's
// Degraded is set when the run happened but not as asked (its faults or
// its history failed): the summary's verdict is then Unknown. The error is
// one that left no run to judge.
func runInto(ctx context.Context, e *env, subj subject.Subject, r scenario.Run, planned time.Duration, dir string) (workloads.RunOutcome, error) {
	_, ownRunner := scenario.RunnerOf(subj) // its runner writes no history as it goes
	switch {
	case ownRunner:
	case e.terminal:
		r.Progress = e.stdout
	default:
		var c historyCounter
		if r.History != nil {
			r.History = io.MultiWriter(r.History, &c)
		} else {
			r.History = &c
		}
		defer e.stderrLines(c.runLine(subj.Name, planned))()
	}
	out, err := scenario.RunInto(ctx, subj, r, dir)
	printRunNotes(ctx, e.stderr, subj.Name, out, err)
	return out, err
}

// printRunNotes prints what a run directory could not hold, the run's
// warnings and, for a run that decided nothing, why.
func printRunNotes(ctx context.Context, w io.Writer, subject string, out workloads.RunOutcome, err error) {
	if out.WriteErr != nil {
		fmt.Fprintf(w, "lockcheck run: writing %s: %v\n", out.Dir, out.WriteErr)
	}
	for _, warn := range out.Warnings {
		fmt.Fprintf(w, "lockcheck run: %s: warning: %s\n", subject, warn)
	}
	if err == nil && out.Summary.Report.Verdict == model.Unknown && !interrupted(ctx) {
		fmt.Fprintf(w, "lockcheck run: %s: verdict unknown: %s\n", subject, unknownCause(out.Summary.Report, out.Degraded))
	}
}

// exitFor is 1 when a summary is invalid (a violation is real whatever
// else happened), else 2 when one is unknown (nothing was decided: a check
// that timed out or was stopped, a history that could not be written, a
// prefix), else 0.
func exitFor(sums []results.Summary) int {
	if len(sums) == 0 {
		return exitInvalid
	}
	code := exitValid
	for _, s := range sums {
		switch s.Verdict() {
		case model.Valid:
		case model.Invalid:
			return exitInvalid
		default:
			code = exitUsage
		}
	}
	return code
}

// unknownCause says why a report's verdict is unknown: degraded (the run
// happened but not as asked: its history or its faults failed), the check
// stopped, or the first undecided checker's explanation.
func unknownCause(rep model.Report, degraded error) string {
	switch {
	case errors.Is(degraded, workloads.ErrHistoryWrite):
		return "history write failed: " + rootCause(degraded)
	case degraded != nil:
		return degraded.Error()
	case rep.Stopped == "interrupted":
		return "the check was interrupted"
	case rep.Stopped != "":
		return "the check " + rep.Stopped + " (--check-timeout)"
	}
	for _, r := range rep.Results {
		if r.Verdict == model.Unknown {
			return r.Checker + ": " + r.Explanation
		}
	}
	return "no checker decided"
}

// rootCause is the innermost error's text ("no space left on device").
func rootCause(err error) string {
	for {
		var next error
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			next = u.Unwrap()
		case interface{ Unwrap() []error }:
			if es := u.Unwrap(); len(es) > 0 {
				next = es[len(es)-1]
			}
		}
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// defaultWorkload is the workload for subjects when none is named: the
// default one, or the bug-hunting one when every subject is a mutant.
func defaultWorkload(subjects []string) string {
	for _, n := range subjects {
		if s, err := catalog.Subjects.Lookup(n); err != nil || s.Kind != subject.KindMutant {
			return workloads.DefaultWorkload
		}
	}
	return "hunt"
}
