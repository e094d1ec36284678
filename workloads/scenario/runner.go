package scenario

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Runner runs the subjects of one object kind other than a lock: a
// semaphore, a latch, or any kind a caller registers (RegisterRunner).
// Locks run in the lock runner (package workloads), whose plans are drawn
// and shrunk by the orchestrators; a Runner draws its run's plan from the
// seed itself, so the orchestrators (the matrix, a hunt, a rediscovery,
// `lockcheck run`) drive every kind through the same three calls.
type Runner interface {
	// Named is the subject of name (NAME, NAME@VERSION or an A+B mix) as
	// a matrix and a hunt name it, without building a release; ok is
	// false when name is not this runner's.
	Named(name string) (s subject.Subject, ok bool)
	// RunInto runs r into run directory dir (results' layout): under
	// r.Scenario's faults in its own world when set, else on r.Dial. The
	// error is one that left no run to judge; a run whose faults failed
	// is judged, and its outcome's Degraded says so.
	RunInto(ctx context.Context, r Run, dir string) (workloads.RunOutcome, error)
	// Expectation is what a correct subject s of the kind shows under sc.
	Expectation(sc Scenario, s subject.Subject) Expect
}

// Run is one run a Runner makes.
type Run struct {
	// Subject names the subject as asked (NAME, NAME@VERSION, A+B).
	Subject string
	// Seed draws the plan and the faults.
	Seed int64
	// Duration, if > 0, is how long the run lasts (else the runner's
	// default plan's length); CheckTimeout bounds the check (0: default).
	Duration, CheckTimeout time.Duration
	// Scenario, if set, runs in its topology under its faults; else the
	// run talks to Redis through Dial (client i of the run), described by
	// Redis (never a password).
	Scenario *Scenario
	Dial     func(ctx context.Context, i int) (redis.UniversalClient, error)
	Redis    string
	// Lock, for a lock without a Scenario, is its run configuration,
	// validated and resolved once (workloads.RunConfig.Resolve), run on
	// Deps and recorded as run against Redis. Runners of other kinds
	// ignore Lock and Deps.
	Lock *workloads.Resolved
	Deps workloads.Deps
	// History and Progress, if set, hear a lock run's history as it is
	// written and its progress (workloads.Deps), under a Scenario too.
	History, Progress io.Writer
}

// Resolver is a Runner that resolves a name before its run (building
// NAME@VERSION if need be), so that a command line naming what cannot run
// is refused before anything starts. A Runner need not be one.
type Resolver interface {
	// Resolve returns an error wrapping subject.ErrUnknown or
	// subject.ErrRelease when name names nothing this runner can run.
	Resolve(ctx context.Context, name string) error
	// Ready reports why the resolved name cannot run on this machine
	// (nil: it can).
	Ready(ctx context.Context, name string) error
}

// Versioner is a Runner whose subjects run other releases of their
// library (NAME@VERSION). A Runner need not be one.
type Versioner interface {
	// Versions is how the subject called name (no version) runs other
	// releases (nil: it runs one release only).
	Versions(name string) *subject.Versions
}

// VersionsOf is how s, of a kind with a runner of its own, runs other
// releases: its runner's answer when that is a Versioner, else nil.
func VersionsOf(s subject.Subject) *subject.Versions {
	if r, ok := RunnerOf(s); ok {
		if v, ok := r.(Versioner); ok {
			return v.Versions(s.Name)
		}
	}
	return nil
}

// Resolve resolves s through its kind's runner when that is a Resolver
// (nil otherwise, and for a lock: the lock runner resolves its own).
func Resolve(ctx context.Context, s subject.Subject) error {
	if r, ok := RunnerOf(s); ok {
		if res, ok := r.(Resolver); ok {
			return res.Resolve(ctx, s.Name)
		}
	}
	return nil
}

// Ready reports why s cannot run on this machine, when its kind's runner
// is a Resolver (nil otherwise).
func Ready(ctx context.Context, s subject.Subject) error {
	if r, ok := RunnerOf(s); ok {
		if res, ok := r.(Resolver); ok {
			return res.Ready(ctx, s.Name)
		}
	}
	return nil
}

// runners is the registry of object kinds to their runner: one entry per
// kind that is not a lock. permits' semaphores and latches are built in.
var runners = struct {
	sync.RWMutex
	m map[subject.Kind]Runner
}{m: map[subject.Kind]Runner{subject.KindPermits: permitsRunner{}}}

// RegisterRunner adds the runner of object kind k. It panics if k has one
// already: a kind has one runner.
func RegisterRunner(k subject.Kind, r Runner) {
	runners.Lock()
	defer runners.Unlock()
	if _, dup := runners.m[k]; dup {
		panic(fmt.Sprintf("scenario: kind %q has a runner already", k))
	}
	runners.m[k] = r
}

// RunnerOf returns the runner of s's kind; ok is false for a lock (the
// lock runner's, package workloads).
func RunnerOf(s subject.Subject) (r Runner, ok bool) {
	runners.RLock()
	defer runners.RUnlock()
	r, ok = runners.m[s.Kind]
	return r, ok
}

// Named is the subject of name that a registered runner runs, in kind
// order; ok is false when no runner knows name (a lock, or nothing).
func Named(name string) (s subject.Subject, ok bool) {
	runners.RLock()
	kinds := make([]subject.Kind, 0, len(runners.m))
	for k := range runners.m {
		kinds = append(kinds, k)
	}
	runners.RUnlock()
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	for _, k := range kinds {
		r, _ := RunnerOf(subject.Subject{Kind: k})
		if s, ok := r.Named(name); ok {
			return s, true
		}
	}
	return subject.Subject{}, false
}

// Known reports whether a registered runner runs name.
func Known(name string) bool {
	_, ok := Named(name)
	return ok
}

// ErrPlainLock is returned by RunInto for a lock with neither a scenario
// nor a resolved run: a plain lock run takes its plan from its caller
// (Run.Lock).
var ErrPlainLock = fmt.Errorf("scenario: a plain lock run needs a plan")

// RunInto runs r for subject s into run directory dir: in the runner of
// s's kind (RunnerOf), or, for a lock, in the lock runner: under
// r.Scenario (Prepare, then its resolved run), else r.Lock on r.Deps. It
// is the one run path of every run, whatever its kind: a matrix's cells,
// and `lockcheck run`'s subjects, each a one-cell matrix.
func RunInto(ctx context.Context, s subject.Subject, r Run, dir string) (workloads.RunOutcome, error) {
	if k, ok := RunnerOf(s); ok {
		return k.RunInto(ctx, r, dir)
	}
	if r.Scenario == nil {
		if r.Lock == nil {
			return workloads.RunOutcome{}, ErrPlainLock
		}
		return r.Lock.On(r.Redis).RunInto(ctx, dir, r.observed(r.Deps))
	}
	p, err := r.Scenario.Prepare(ctx, Options{Subject: r.Subject, Seed: r.Seed, Duration: r.Duration, CheckTimeout: r.CheckTimeout})
	if err != nil {
		return workloads.RunOutcome{}, err
	}
	defer p.Close()
	return p.Resolved.RunInto(ctx, dir, r.observed(p.Deps))
}

// observed is deps with r's History and Progress added.
func (r Run) observed(deps workloads.Deps) workloads.Deps {
	switch {
	case r.History != nil && deps.History != nil:
		deps.History = io.MultiWriter(deps.History, r.History)
	case r.History != nil:
		deps.History = r.History
	}
	if r.Progress != nil {
		deps.Progress = r.Progress
	}
	return deps
}
