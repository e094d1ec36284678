package locktest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Run checks lock in lockcheck's fault scenarios that fit what it claims,
// each in a subtest named after the scenario, within the budget
// (ShortBudget under -short, DefaultBudget otherwise, $LOCKCHECK_BUDGET
// over both). Every run's plan is drawn by rapid from the scenario's, and
// its history is checked against what the scenario requires. The first
// run that does not show it fails its subtest: rapid shrinks the plan, and
// the failure says why (the checkers' explanation), where the run's
// directory is kept (history.html) and how to rerun it (a `lockcheck run`
// line and rapid's -rapid.seed line); the scenarios after it are not run.
//
// A must-pass scenario requires a valid verdict. An unsafe one (a client
// stalled or cut off past its lease, a restart that forgets the locks, a
// server clock jumping ahead) breaks any lease lock, so there the lock may
// lose a hold, but nothing beyond what the fault allows a correct lease
// lock: the fault-allowance checker must find nothing, and the checkers
// that fire must be those of the properties the fault takes away (a
// fenced lock's fences must hold). Scenarios Run leaves out (a topology it
// does not start: Cluster, N independent nodes; runs too long for its
// budget: Sentinel failovers, long holds) are logged as not run, with the
// reason.
//
// Run starts its own redis-server processes on loopback ports, one world
// per run, and stops them; with $LOCKCHECK_REDIS it runs the scenarios
// whose faults are Redis commands against that Redis instead.
func Run(t *testing.T, lock Lock, opts ...Option) {
	t.Helper()
	if *serveFlag {
		serve(lock)
	}
	s, err := newSuite(t, lock, opts)
	if err != nil {
		t.Fatal(err)
	}
	s.runAll(t)
}

// suite is one call of Run.
type suite struct {
	test     string // the name of Run's test: -test.run of the rerun
	lock     Lock
	subject  subject.Subject
	reg      *subject.Registry
	remote   *scenario.Remote // $LOCKCHECK_REDIS, or nil
	planned  []planned
	deadline time.Time
	first    int64 // the seed the draws start from (firstSeed; each scenario its own: scenarioSeed)
	failed   bool  // a scenario failed: the rest are not run
	broken   error // the world could not be made: not the lock's fault
}

// newSuite checks lock and the options and picks the scenarios.
func newSuite(t *testing.T, lock Lock, opts []Option) (*suite, error) {
	if err := lock.validate(); err != nil {
		return nil, err
	}
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s := &suite{test: t.Name(), lock: lock, subject: lock.subject(), first: firstSeed(cfg.seed)}
	if s.reg, err = lock.registry(); err != nil {
		return nil, err
	}
	if err := checkClaims(lock); err != nil {
		return nil, err
	}
	if s.remote, err = remoteFromEnv(); err != nil {
		return nil, err
	}
	planned, skipped := pick(context.Background(), s.subject, testing.Short(), cfg.scenarios, s.remote)
	for _, name := range cfg.scenarios {
		if !s.picked(planned, name) {
			return nil, fmt.Errorf("locktest: Scenarios(%q): not a scenario locktest can run for %s (not run: %s)", name, lock.Name, strings.Join(skipped, "; "))
		}
	}
	if len(skipped) > 0 {
		t.Logf("locktest: %s: scenarios not run:\n  %s", lock.Name, strings.Join(skipped, "\n  "))
	}
	s.planned, s.deadline = planned, start.Add(cfg.budget)
	return s, nil
}

func (s *suite) picked(planned []planned, name string) bool {
	for _, p := range planned {
		if p.sc.Name == name {
			return true
		}
	}
	return false
}

// runAll runs each planned scenario in a subtest, sharing what is left of
// the budget among the scenarios still to run in proportion to the length
// of their runs times the runs each is owed (the triggers of watchdog and
// timeout bugs several; each runs once at least).
func (s *suite) runAll(t *testing.T) {
	t.Helper()
	for i, p := range s.planned {
		if s.failed || s.broken != nil {
			t.Logf("locktest: %s not run: an earlier scenario failed", p.sc.Name)
			continue
		}
		var left time.Duration
		for _, q := range s.planned[i:] {
			left += q.run * time.Duration(q.runs)
		}
		share := time.Duration(float64(time.Until(s.deadline)) * float64(p.run*time.Duration(p.runs)) / float64(left))
		t.Run(p.sc.Name, func(t *testing.T) { s.check(t, p, share) })
	}
}

// checkClaims checks the claims a handle's type shows (see
// Lock.checkClaims) on a client that is never used: making a handle does
// not talk to Redis.
func checkClaims(lock Lock) error {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return lock.checkClaims(ctx, rdb)
}

// remoteFromEnv is the deployment $LOCKCHECK_REDIS names (nil when unset).
func remoteFromEnv() (*scenario.Remote, error) {
	v := os.Getenv(EnvRedis)
	if v == "" {
		return nil, nil
	}
	a, err := faults.ParseRedisAddr(v)
	if err != nil {
		return nil, fmt.Errorf("locktest: $%s: %w", EnvRedis, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rdb, err := a.Connect(ctx)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("locktest: $%s=%s is unreachable", EnvRedis, a.Redacted()), err)
	}
	_ = rdb.Close()
	return &scenario.Remote{Redis: a.Options(), Desc: a.Redacted()}, nil
}
