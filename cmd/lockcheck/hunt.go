package main

import (
	"context"
	"os"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// huntCmd is `lockcheck hunt`: it draws seeds, plans and scenarios until a
// run finds a violation or the budget runs out (package hunt). A find is
// shrunk and printed as a `lockcheck run` command that reruns the shrunk
// draw (exit 1); a budget spent without a find exits 0; bad input, a Redis
// that cannot be started or reached, or a run that could not be made exits
// 2.
func huntCmd(ctx context.Context, e *env, args []string) (int, error) {
	f, err := parseHuntFlags(e, args)
	if err != nil {
		return exitUsage, err
	}
	if e.stopValidated("hunt") {
		return exitValid, nil
	}
	sweepStale(ctx, e)
	ctx, closeEngine, err := f.engine.open(ctx, e.stderr, f.redis != "")
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	rf := runFlags{redis: f.redis}
	tgt, err := rf.openTarget(ctx, faults.PersistNone)
	if err != nil {
		return exitUsage, err
	}
	defer tgt.Close()
	p := &huntPrinter{ctx: ctx, e: e}
	progress := newTally("lockcheck hunt", "", 0, true)
	stopProgress := e.progress(progress.line)
	res, err := hunt.Run(ctx, hunt.Config{
		Subject: f.subject, Budget: f.budget, RunDuration: f.runDuration, Seed: f.seed, Out: f.out, ThreadsPerProcess: f.threads,
		Redis: f.redis, RedisPassword: os.Getenv(envRedisPassword), Target: tgt, Observer: huntProgress{p, progress},
	})
	stopProgress()
	switch {
	case res == nil:
		return exitUsage, err
	case res.Find != nil && err != nil:
		return exitUsage, err
	case res.Find != nil:
		p.reportFind(res)
		return exitInvalid, nil
	case interrupted(ctx):
		p.reportTried(e.stderr, res, "interrupted after")
		reportInterrupted(e, "hunt", []string{res.Dir}, nil)
		return exitInterrupted, nil
	case err != nil:
		p.reportTried(e.stderr, res, "stopped by an error after")
		return exitUsage, err
	}
	p.reportTried(e.stdout, res, "no violation in")
	return exitValid, nil
}
