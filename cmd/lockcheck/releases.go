package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockcheck/lockcheck/workloads/hunt"
	"github.com/lockcheck/lockcheck/workloads/releases"
)

const releasesExamples = `  lockcheck releases redisson                          # newest patch of each line + catalogued releases, their bugs and hunts
  lockcheck releases redisson@3.43.0                   # one release: its bugs, sources, and the nearest release without any
  lockcheck releases redisson --md results/releases/redisson.md
  lockcheck releases redisson@3.43.0 --hunt --budget 30s --seeds 1   # hunt one release, cache it in results/releases/redisson/
  lockcheck releases redsync --refresh --json          # ask the registry again
`

// releasesCmd is `lockcheck releases LIB[@VERSION]`: the releases of a
// library with the catalogued bugs each has and lockcheck's cached hunts,
// or what is known of one release (package releases). Exit 2 for a
// library, release or flag it cannot answer for.
func releasesCmd(ctx context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "releases", "releases LIB[@VERSION] [flags]", releasesExamples)
	cfg := releases.Config{Stamp: releases.Stamp{Date: time.Now().UTC().Format(time.DateOnly), Commit: pageCommit()}}
	hc := releases.HuntConfig{Date: cfg.Stamp.Date, Commit: cfg.Stamp.Commit}
	var doHunt bool
	fs.StringVar(&cfg.Dir, "dir", "results/releases", "the caches: DIR/LIB/releases.json (the registry's list) and DIR/LIB/VERSION.json (hunts)")
	fs.StringVar(&cfg.Catalog, "catalog", "results/known-bugs.json", "the catalog of known bugs")
	fs.BoolVar(&cfg.Refresh, "refresh", false, "ask the registry for its releases even when a list is cached")
	fs.BoolVar(&cfg.JSON, "json", false, "print JSON")
	fs.StringVar(&cfg.Markdown, "md", "", "also write the library's page there (LIB only)")
	fs.BoolVar(&doHunt, "hunt", false, "hunt the release (LIB@VERSION), or every supported release whose cached hunt differs (LIB), and cache the hunts")
	fs.DurationVar(&hc.Budget, "budget", releases.DefaultBudget, "with --hunt: each seed's hunt's budget")
	fs.IntVar(&hc.Seeds, "seeds", releases.DefaultSeeds, "with --hunt: hunts per release, from seeds 1 to N")
	pos, err := parseInterspersed(fs, args)
	switch {
	case err != nil:
		return exitUsage, err
	case len(pos) != 1:
		return exitUsage, usagef("want one LIB or LIB@VERSION, got %d arguments", len(pos))
	case hc.Seeds < 1:
		return exitUsage, usagef("--seeds %d: want 1 or more", hc.Seeds)
	}
	if err := checkBudget(hc.Budget, min(hunt.DefaultRunDuration, hc.Budget)); err != nil {
		return exitUsage, err
	}
	cfg.Name = pos[0]
	if doHunt {
		hc.Observer = &rediscoverPrinter{huntPrinter: huntPrinter{ctx: ctx, e: e}}
		cfg.Hunt = &hc
	}
	if e.stopValidated("releases") {
		return exitValid, nil
	}
	err = releases.Run(ctx, cfg, e.stdout)
	switch {
	case errors.Is(err, releases.ErrInput):
		return exitUsage, usageError{err}
	case interrupted(ctx):
		return exitInterrupted, nil
	case err != nil:
		return exitUsage, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	return exitValid, nil
}
