package main

import (
	"context"
	"fmt"

	"github.com/lockcheck/lockcheck/workloads/bench"
)

func benchCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "bench", "bench [--quick] [--out DIR] [--redis ADDR]",
		"  lockcheck bench --quick            # under a minute\n  lockcheck bench                    # full table, a few minutes\n")
	quick := fs.Bool("quick", false, "short windows and fewer rounds (under a minute)")
	out := fs.String("out", "results/bench", "directory for latest.{md,csv,png,json} and history.csv")
	redisURL := fs.String("redis", "", "benchmark an existing Redis instead of a redis-server lockcheck starts")
	if err := parseFlags(fs, args, 0); err != nil {
		return exitUsage, err
	}
	cfg := bench.Config{Quick: *quick, Progress: e.stderr}
	if *redisURL != "" {
		tgt, err := openTarget(ctx, *redisURL, "")
		if err != nil {
			return exitUsage, err
		}
		cfg.Redis = tgt.opts()
	}
	rep, err := bench.Run(ctx, cfg, nil)
	if err != nil {
		return exitUsage, err
	}
	if err := rep.WriteTables(e.stdout); err != nil {
		return exitUsage, err
	}
	if err := rep.WriteDir(*out); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stdout, "written to %s\n", *out)
	return exitValid, nil
}
