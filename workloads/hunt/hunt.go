// Package hunt searches for a violation and shrinks it: it draws seeds,
// plans and scenarios from one seed until a run finds a violation or the
// budget runs out, then simplifies the failing draw while it keeps failing,
// and returns the shrunk reproduction: the `lockcheck run` command that
// reruns it, its run directory and what went wrong.
//
// Search and shrink work over an Executor (by default one that runs on a
// redis-server the hunt starts, or on Config.Redis) and report progress
// through an Observer; they print nothing.
package hunt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
	"github.com/lockcheck/lockcheck/workloads/target"
)

// MinRun is the shortest run a hunt makes: the floor of RunDuration, of a
// run cut short by the budget and of the duration shrinking.
const MinRun = 2 * time.Second

// DefaultRunDuration is the length of a plain run when Config.RunDuration
// is zero.
const DefaultRunDuration = 10 * time.Second

// ErrConfig marks a Config that cannot run; the error names the field.
var ErrConfig = errors.New("hunt: bad config")

// Config is one hunt.
type Config struct {
	// Subject is the lock to hunt in: one subject of Registry, or an A+B
	// mix (required).
	Subject string
	// Registry resolves Subject (nil: catalog.Subjects).
	Registry *subject.Registry
	// Budget is how long to keep drawing runs (required, > 0); shrinking
	// a find uses what is left of it, at most MaxShrink.
	Budget time.Duration
	// RunDuration is the length of each plain run (0: DefaultRunDuration;
	// at least MinRun, at most Budget); a scenario runs for its own.
	RunDuration time.Duration
	// Seed is the first seed: every draw derives from it (0: derived from
	// the clock; Result.Seed holds the one used).
	Seed int64
	// Drawn is how many draws of Seed's sequence an earlier hunt made
	// (>= 0): this hunt goes on from the next one, seed Seed+Drawn, with
	// the scenarios that earlier hunt had not dealt yet, as it would have
	// gone on past its find (a caller that hunts on past finds).
	Drawn int
	// Out is the base directory: the hunt's runs and plan.json go to
	// <Out>/runs/hunt/<time>-<seed>/ ("": <os.TempDir()>/lockcheck).
	Out string
	// Redis, if set, is an existing Redis (host:port or redis[s]://…) the
	// plain runs use instead of a redis-server the hunt starts; the hunt
	// then draws no scenarios (they need servers lockcheck starts), and
	// the rerun command names it (redacted).
	Redis string
	// RedisPassword is used when Redis carries no password.
	RedisPassword string
	// Target, if set, is the Redis of the plain runs, opened by the caller
	// (on Redis, when that is set), who also closes it; nil: the hunt
	// starts a redis-server, or connects to Redis, and closes it.
	Target *target.Target
	// Scenarios the hunt may draw; nil: Scenarios(subject), or none with
	// Redis. A non-nil empty slice draws none.
	Scenarios []scenario.Scenario
	// Judge, if set, says whether a scenario's run shows what the subject
	// must show there, and if not why, in place of the scenario's
	// Expectation for the subject (locktest's: an unsafe scenario's run
	// must stay within the fault's allowance). Used by the default
	// Executor.
	Judge Judge
	// ThreadsPerProcess, > 0, is how many owners every run's client
	// processes host (Plan.ThreadsPerProcess); 0: each plain run draws it
	// from its seed (DrawThreads) when the subject can host several owners
	// in a process, and scenarios keep their own plans' one.
	ThreadsPerProcess int
	// Serve and Served are scenario.Options's, for every run (the plain
	// ones too): how a Go lock is served in a process of its own, and
	// whether every run serves it so.
	Serve  subject.Server
	Served bool
	// Observer hears the hunt's progress (nil: nothing).
	Observer Observer
	// Executor runs the draws (nil: runs on Redis as `lockcheck run`).
	Executor Executor
	// Same, if set, says whether a shrink candidate's find is still the
	// failure being shrunk, first being the search's find (nil:
	// SameFailure). A candidate whose runs fail only otherwise passes.
	Same func(first, cand Trial) bool
	// Shrinks, if set, says whether to shrink a find (nil: every find). A
	// find it declines is its own reproduction (Find.Shrunk is First, no
	// step kept): a caller that only records it (another known bug) then
	// spends no budget on it.
	Shrinks func(first Trial) bool

	now func() time.Time // the clock (tests: a fake one); nil: time.Now
}

// Result is what a hunt did.
type Result struct {
	Subject string
	// Seed is the first seed (Config.Seed, or the one derived from the
	// clock).
	Seed int64
	// Dir is the hunt's directory: one run directory per run, plan.json.
	Dir string
	// Tried counts the search's runs (shrink runs apart).
	Tried Tally
	// Skipped are the scenarios that could not run here, with why.
	Skipped map[string]error
	// Elapsed is the time from the budget's start to the end of the hunt.
	Elapsed time.Duration
	// Interrupted says ctx ended before a find or the budget's end.
	Interrupted bool
	// Find is the violation found and shrunk; nil when none was found.
	Find *Find
}

// Run hunts as cfg says until a find is shrunk, the budget runs out or
// ctx ends. It returns a nil Result and an error wrapping ErrConfig for a
// config that cannot run, or the error that kept the hunt from starting
// (a Redis that cannot be started or reached). Once started it always
// returns a Result; its error is then the one that stopped the search (a
// run that could not be made) or kept plan.json from being written.
//
// Guarantees: every random choice derives from the seed (the machine
// decides only the interleavings inside each run, and what becomes of a
// scenario that cannot run here); no run starts unless its duration fits
// in what is left of the budget (a run's check may go past it); a Find's
// Shrunk draw failed at least once, and is never less simple than First;
// Run starts no goroutine that outlives it, and stops the redis-server it
// started before it returns.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	subj, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	exec, desc, closeExec, err := cfg.executor(ctx, subj)
	if err != nil {
		return nil, err
	}
	defer closeExec()
	h, err := newHunter(cfg, subj, exec, desc)
	if err != nil {
		return nil, err
	}
	return h.run(ctx)
}

// resolve fills cfg's defaults and checks it, before anything starts.
func (cfg *Config) resolve() (subject.Subject, error) {
	if cfg.Registry == nil {
		cfg.Registry = catalog.Subjects
	}
	if cfg.RunDuration == 0 {
		cfg.RunDuration = DefaultRunDuration
	}
	if cfg.Out == "" {
		cfg.Out = filepath.Join(os.TempDir(), "lockcheck")
	}
	if cfg.Observer == nil {
		cfg.Observer = NopObserver{}
	}
	if cfg.now == nil {
		cfg.now = time.Now
	}
	if cfg.Seed == 0 {
		cfg.Seed = cfg.now().UnixNano() % 1_000_000
	}
	bad := func(format string, args ...any) (subject.Subject, error) {
		return subject.Subject{}, fmt.Errorf("%w: %s", ErrConfig, fmt.Sprintf(format, args...))
	}
	switch {
	case cfg.Subject == "" || strings.Contains(cfg.Subject, ","):
		return bad("Subject %q: want one subject or an A+B mix", cfg.Subject)
	case cfg.Budget <= 0:
		return bad("Budget %v: want a positive duration", cfg.Budget)
	case cfg.Drawn < 0:
		return bad("Drawn %d: want 0 or more draws", cfg.Drawn)
	case cfg.RunDuration < MinRun || cfg.RunDuration > cfg.Budget:
		return bad("RunDuration %v: want %v..Budget (%v)", cfg.RunDuration, MinRun, cfg.Budget)
	case cfg.ThreadsPerProcess < 0 || cfg.ThreadsPerProcess > workloads.MaxThreadsPerProcess:
		return bad("ThreadsPerProcess %d: want 0..%d", cfg.ThreadsPerProcess, workloads.MaxThreadsPerProcess)
	}
	subj, err := cfg.Registry.Lookup(cfg.Subject)
	if s, ok := scenario.Named(cfg.Subject); err != nil && ok {
		subj, err = s, nil // a kind with a runner of its own (a semaphore, a latch)
		if cfg.ThreadsPerProcess > 0 {
			return bad("ThreadsPerProcess %d: %s runs one owner per client process", cfg.ThreadsPerProcess, cfg.Subject)
		}
	}
	if err != nil {
		return bad("Subject: %v", err)
	}
	if cfg.ThreadsPerProcess > 1 && !subj.HostsOwners() {
		return bad("ThreadsPerProcess %d: %s hosts one owner per client process", cfg.ThreadsPerProcess, cfg.Subject)
	}
	if subj.Needs != "" && subj.Needs != subject.NeedsOneAddress && cfg.Executor == nil {
		return bad("Subject %s needs %s: a hunt's plain runs have one Redis", cfg.Subject, subj.Needs)
	}
	if cfg.Scenarios == nil && cfg.Redis == "" {
		cfg.Scenarios = Scenarios(subj)
	}
	return subj, nil
}

// executor returns the executor of the hunt, the description of its Redis
// and what closes it: Config.Executor, or one on a target opened here.
func (cfg *Config) executor(ctx context.Context, subj subject.Subject) (Executor, string, func(), error) {
	if cfg.Executor != nil {
		return cfg.Executor, "the given executor", func() {}, nil
	}
	tgt, closeTgt := cfg.Target, func() {}
	if tgt == nil {
		var err error
		if cfg.Redis == "" {
			tgt, err = target.Start(ctx, faults.PersistNone)
			if err == nil {
				// The wire trace is every plain run's evidence, and a cut
				// at the wire reaches a client in any process.
				tgt.Wired = true
			}
		} else {
			tgt, err = connect(ctx, cfg.Redis, cfg.RedisPassword)
		}
		if err != nil {
			return nil, "", nil, err
		}
		closeTgt = func() { _ = tgt.Close() }
	}
	if r, ok := scenario.RunnerOf(subj); ok {
		return &kindExecutor{name: cfg.Subject, subject: subj, runner: r, tgt: tgt, obs: cfg.Observer, judge: cfg.Judge}, tgt.Desc, closeTgt, nil
	}
	x := &redisExecutor{name: cfg.Subject, subject: subj, tgt: tgt, registry: cfg.Registry, obs: cfg.Observer, judge: cfg.Judge, threads: cfg.ThreadsPerProcess, serve: cfg.Serve, served: cfg.Served}
	return x, tgt.Desc, closeTgt, nil
}

// wired reports whether the plain runs go through a RESP proxy per client
// (target.Target.Wired): always on the redis-server a hunt starts itself.
func (cfg *Config) wired() bool {
	if cfg.Executor != nil || cfg.Redis != "" {
		return false
	}
	return cfg.Target == nil || cfg.Target.Wired
}

// connect opens the existing Redis at raw (password: the URL's, else pw).
func connect(ctx context.Context, raw, pw string) (*target.Target, error) {
	a, err := faults.ParseRedisAddr(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: Redis: %v", ErrConfig, err)
	}
	if pw != "" && !a.HasPassword() {
		a = a.WithPassword(pw)
	}
	return target.Connect(ctx, a)
}
