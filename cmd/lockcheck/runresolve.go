package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// resolve checks `run`'s command line once and resolves every run in it:
// the subjects of a kind with a runner of its own (the registry's:
// semaphores, latches), or locks under --scenario, or locks on one Redis.
func (f *runFlags) resolve(ctx context.Context, e *env, fs *flag.FlagSet) (*runJob, error) {
	if err := checkRunFlags(fs, f); err != nil {
		return nil, err
	}
	if err := checkSubjectList(splitList(f.subjects)); err != nil {
		return nil, err
	}
	if err := f.engine.check(); err != nil {
		return nil, err
	}
	if err := f.driver.register(ctx, fs, &f.subjects); err != nil {
		return nil, err
	}
	own, err := routesToPermits(splitList(f.subjects))
	switch {
	case err != nil:
		return nil, err
	case own:
		return f.kindJob(ctx, fs)
	case f.scenario != "":
		return f.scenarioJob(fs)
	}
	return f.lockJob(e)
}

// lockJob is the job of locks on one Redis: the plan of each, resolved.
func (f *runFlags) lockJob(e *env) (*runJob, error) {
	plan, err := f.plan()
	if err != nil {
		return nil, err
	}
	if err := checkClients(e, plan, f.clients); err != nil {
		return nil, err
	}
	persistence, err := faults.ParsePersistence(f.persistence)
	if err != nil {
		return nil, usagef("--persistence: %v", err)
	}
	if _, err := f.remote.registry(); err != nil {
		return nil, usageError{err}
	}
	if _, err := f.remote.deployment(f.redis); err != nil {
		return nil, err
	}
	j := &runJob{persistence: persistence, header: func(where string) string {
		return fmt.Sprintf("lockcheck run: seed %d, workload %s, %s each, %s", f.seed, f.workload, plan.each, where)
	}}
	for i, cfg := range plan.configs {
		run := scenario.Run{Subject: cfg.Subject, Seed: cfg.Seed, Duration: cfg.Duration, CheckTimeout: cfg.CheckTimeout, Lock: &plan.runs[i]}
		j.cells = append(j.cells, runCell{subj: plan.subjects[i], run: run, planned: cfg.Duration, name: cfg.Workload + "-" + cfg.Subject})
	}
	return j, nil
}

// scenarioJob is the job of `run --scenario` on locks: each subject's run
// is a cell of that scenario, judged by the subject's expectation there.
func (f *runFlags) scenarioJob(fs *flag.FlagSet) (*runJob, error) {
	sc, subjects, err := f.scenarioRun(fs)
	if err != nil {
		return nil, err
	}
	if f.seed == 0 {
		f.seed = time.Now().UnixNano() % 1_000_000
	}
	planned := sc.Duration
	if f.duration > 0 {
		planned = f.duration
	}
	j := &runJob{sc: &sc, expect: true, header: func(string) string {
		return fmt.Sprintf("lockcheck run: scenario %s, seed %d", sc.Name, f.seed)
	}}
	for _, s := range subjects {
		exp := sc.Expectation(s)
		run := scenario.Run{Subject: s.Name, Seed: f.seed, Duration: f.duration, CheckTimeout: f.checkTime}
		j.cells = append(j.cells, runCell{subj: s, run: run, planned: planned, name: sc.Name, suffix: s.Name, exp: &exp})
	}
	return j, nil
}

// kindJob is the job of subjects whose kind has a runner of its own (the
// registry's, scenario.RunnerOf: semaphores and latches), each drawing its
// plan from the seed: on one Redis, or under --scenario in a world per run.
func (f *runFlags) kindJob(ctx context.Context, fs *flag.FlagSet) (*runJob, error) {
	plan, err := f.permitsPlan(fs)
	if err != nil {
		return nil, err
	}
	sc, err := f.permitsScenario(fs)
	if err != nil {
		return nil, err
	}
	persistence, _ := faults.ParsePersistence(f.persistence) // checked by permitsScenario
	handovers := ""
	if plan.Handovers > 0 {
		handovers = fmt.Sprintf(" (a semaphore's then %v of handovers)", plan.Handovers)
	}
	j := &runJob{sc: sc, persistence: persistence, header: func(where string) string {
		return fmt.Sprintf("lockcheck run: seed %d, workload %s, %d rounds of %v each%s, %s",
			f.seed, permits.Workload, plan.Rounds, plan.RoundLength(), handovers, where)
	}}
	for _, n := range splitList(f.subjects) {
		s, _ := scenario.Named(n)
		if err := scenario.Resolve(ctx, s); err != nil {
			if errors.Is(err, subject.ErrRelease) || errors.Is(err, subject.ErrUnknown) {
				return nil, usagef("--subject: %v", err)
			}
			return nil, err
		}
		run := scenario.Run{Subject: n, Seed: f.seed, Duration: f.duration, CheckTimeout: f.checkTime}
		j.cells = append(j.cells, runCell{subj: s, run: run, planned: time.Duration(plan.Rounds) * plan.RoundLength(), name: permits.Workload + "-" + n})
	}
	return j, nil
}
