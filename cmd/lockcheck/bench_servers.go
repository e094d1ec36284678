package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockcheck/lockcheck/faults/servers"
	"github.com/lockcheck/lockcheck/workloads/bench"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// benchServers is `lockcheck bench --servers A,B`: the same benchmark on
// each server in turn (each its own rounds), then one table of every
// cell's cycles/s side by side, and each server's full report in
// dir/<server>/ plus servers.md.
func benchServers(ctx context.Context, e *env, list string, eng engineFlags, cfg bench.Config, subjs []subject.Subject, dir string) (int, error) {
	var reps []bench.ServerReport
	for _, name := range splitList(list) {
		eng.server = name
		sctx, closeEngine, err := eng.open(ctx, e.stderr, false)
		if err != nil {
			return exitUsage, err
		}
		rep, err := bench.Run(sctx, cfg, subjs)
		_ = closeEngine()
		if err != nil {
			if interrupted(ctx) {
				reportInterrupted(e, "bench", nil, nil)
				return exitInterrupted, nil
			}
			return exitUsage, fmt.Errorf("bench on %s: %w", name, err)
		}
		if err := rep.WriteDir(filepath.Join(dir, name)); err != nil {
			return exitUsage, err
		}
		srv, _ := servers.Resolve(ctx, name)
		reps = append(reps, bench.ServerReport{Server: srv.String(), Report: rep})
	}
	if err := bench.WriteServersTable(e.stdout, reps, false); err != nil {
		return exitUsage, err
	}
	var md strings.Builder
	if err := bench.WriteServersTable(&md, reps, true); err != nil {
		return exitUsage, err
	}
	if err := os.WriteFile(filepath.Join(dir, "servers.md"), []byte(md.String()), 0o644); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(e.stderr, "written to %s\n", dir)
	return exitValid, nil
}

// checkServersList rejects a --servers list with a name the axis lacks, or
// one combined with what it replaces.
func checkServersList(list string, redisURL string, record bool, eng engineFlags) error {
	if list == "" {
		return nil
	}
	switch {
	case redisURL != "":
		return usagef("--servers: lockcheck starts each server; drop --redis")
	case record:
		return usagef("--servers: the committed track record is one server's; drop --record")
	case eng.server != "":
		return usagef("--servers and --server: give one")
	}
	for _, name := range splitList(list) {
		eng.server = name
		if err := eng.check(); err != nil {
			return err
		}
	}
	return nil
}
