package scenario

import (
	"context"
	"fmt"
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

// ErrPlainLock is returned by RunInto for a lock without a scenario: a
// plain lock run takes its plan from its caller (workloads.RunInto).
var ErrPlainLock = fmt.Errorf("scenario: a plain lock run needs a plan")

// RunInto runs r for subject s into run directory dir: in the runner of
// s's kind (RunnerOf), or, for a lock, in the lock runner under
// r.Scenario (Prepare, then workloads.RunInto). It is the one run path of
// every cell, whatever its kind.
func RunInto(ctx context.Context, s subject.Subject, r Run, dir string) (workloads.RunOutcome, error) {
	if k, ok := RunnerOf(s); ok {
		return k.RunInto(ctx, r, dir)
	}
	if r.Scenario == nil {
		return workloads.RunOutcome{}, ErrPlainLock
	}
	p, err := r.Scenario.Prepare(ctx, Options{Subject: r.Subject, Seed: r.Seed, Duration: r.Duration, CheckTimeout: r.CheckTimeout})
	if err != nil {
		return workloads.RunOutcome{}, err
	}
	defer p.Close()
	return workloads.RunInto(ctx, p.Config, dir, p.Deps)
}
