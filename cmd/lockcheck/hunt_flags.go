package main

import (
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// huntFlags are the flags of `lockcheck hunt`.
type huntFlags struct {
	subject     string
	budget      time.Duration
	runDuration time.Duration
	seed        int64
	out         string
	redis       string
	engine      engineFlags
	threads     int
}

const huntExamples = `  lockcheck hunt --subject mutant-check-then-set --budget 1m   # exits 1: prints the shrunk reproduction
  lockcheck hunt --subject reentrant --budget 10m --seed 7       # exits 0 when 10 minutes of runs found nothing
  lockcheck hunt --subject reentrant+fair --run-duration 5s      # a mixed fleet
  lockcheck hunt --subject fair --redis 10.0.0.5:6379            # plain runs only, on that Redis
`

// parseHuntFlags parses and checks the command line of `lockcheck hunt`:
// every error is a usage error naming the flag.
func parseHuntFlags(e *env, args []string) (huntFlags, error) {
	fs := newFlags(e, "hunt", "hunt --subject S [flags]", huntExamples)
	var h huntFlags
	fs.StringVar(&h.subject, "subject", "", "the subject to hunt in: one subject or an A+B mix (see 'lockcheck subjects'); required")
	fs.DurationVar(&h.budget, "budget", 10*time.Minute, "how long to keep drawing runs; shrinking a find uses what is left of it (at most 3m)")
	fs.DurationVar(&h.runDuration, "run-duration", 10*time.Second, "length of each plain run (at least 2s); a scenario runs for its own duration")
	fs.Int64Var(&h.seed, "seed", 0, "first seed: every draw (seeds, plans, scenarios) derives from it (default: derived from the clock, printed)")
	fs.StringVar(&h.out, "out", "results", "base directory: the hunt's runs and plan.json go to <out>/runs/hunt/<time>-<seed>/")
	fs.IntVar(&h.threads, "threads-per-process", 0, "owners per client process in every run (0: each plain run draws it from its seed, when the subject can host several)")
	fs.StringVar(&h.redis, "redis", "", "run the plain runs on an existing Redis (host:port or redis[s]://…) instead of a redis-server lockcheck starts; no scenarios then")
	h.engine.add(fs)
	if err := parseFlags(fs, args, 0); err != nil {
		return h, err
	}
	if err := h.check(); err != nil {
		return h, err
	}
	if err := h.engine.check(); err != nil {
		return h, err
	}
	if h.seed == 0 {
		h.seed = time.Now().UnixNano() % 1_000_000
	}
	return h, nil
}

// check rejects a hunt command line that cannot run, before anything starts.
func (h *huntFlags) check() error {
	switch {
	case h.subject == "":
		return usagef("--subject: name the subject to hunt in (see 'lockcheck subjects')")
	case strings.Contains(h.subject, ","):
		return usagef("--subject %q: hunt takes one subject (or an A+B mix), not a list", h.subject)
	}
	if err := checkBudget(h.budget, h.runDuration); err != nil {
		return err
	}
	if h.threads < 0 || h.threads > workloads.MaxThreadsPerProcess {
		return usagef("--threads-per-process %d: want 1..%d (0: drawn)", h.threads, workloads.MaxThreadsPerProcess)
	}
	if scenario.Known(h.subject) { // a kind with a runner of its own
		if h.threads > 0 {
			return usagef("--threads-per-process: %s is a semaphore or latch, one owner per client process", h.subject)
		}
		return nil // its runs draw their own plan (the permits runner)
	}
	if _, err := catalog.Subjects.Lookup(h.subject); err != nil {
		return usagef("--subject: %v", err)
	}
	if h.redis != "" {
		if _, err := faults.ParseRedisAddr(h.redis); err != nil {
			return usagef("--redis: %v", err)
		}
	}
	// The first draw's configuration catches what only run's checks know
	// (a subject that needs replicas or independent nodes).
	_, err := h.plainConfig(1, h.runDuration, hunt.Plan(1))
	return err
}

// checkBudget checks --budget and --run-duration: a positive budget that
// fits at least one run of at least hunt.MinRun.
func checkBudget(budget, runDuration time.Duration) error {
	switch {
	case budget <= 0:
		return usagef("--budget %v: want a positive duration, e.g. 10m", budget)
	case runDuration < hunt.MinRun:
		return usagef("--run-duration %v: want at least %v", runDuration, hunt.MinRun)
	case runDuration > budget:
		return usagef("--run-duration %v does not fit in --budget %v", runDuration, budget)
	}
	return nil
}

// plainConfig returns the configuration `lockcheck run --subject S --seed
// seed --duration d --plan FILE` (FILE holding plan) builds: the hunt runs
// exactly what its printed command reruns.
func (h *huntFlags) plainConfig(seed int64, d time.Duration, plan workloads.Plan) (workloads.RunConfig, error) {
	f := runFlags{subjects: h.subject, duration: d, seed: seed, maxWait: model.WaitDerived, givenPlan: &plan}
	p, err := f.plan()
	if err != nil {
		return workloads.RunConfig{}, err
	}
	return p.configs[0], nil
}
