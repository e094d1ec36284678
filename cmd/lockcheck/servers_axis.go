package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/lockcheck/lockcheck/faults/servers"
	"github.com/lockcheck/lockcheck/workloads/matrix"
)

// serverList is the servers a matrix runs on, in the order given: --servers
// (each checked, none twice, not with --server), or the one --server names
// ("" the default). A name not in servers.Names is a usage error.
func (f *matrixFlags) serverList() ([]string, error) {
	if f.servers == "" {
		return []string{f.engine.server}, nil
	}
	if f.engine.server != "" {
		return nil, usagef("--server %s and --servers %s: give one of them", f.engine.server, f.servers)
	}
	var out []string
	for _, s := range splitList(f.servers) {
		if err := servers.Check(s); err != nil {
			return nil, usagef("--servers: %v", err)
		}
		if slices.Contains(out, s) {
			return nil, usagef("--servers: %s twice", s)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usagef("--servers %q: no server named", f.servers)
	}
	return out, nil
}

// executeServers runs the matrix cfg once per server in names, each as a
// matrix of its own (its own engine, its cells' commands repeating its
// --server) in cfg.Dir/<server> when there is more than one, else in
// cfg.Dir. It stops at the first server that could not start (or an
// interrupt); a server's cells that could not run do not stop the next
// server's. It returns the worst exit status of the runs.
func executeServers(ctx context.Context, e *env, f *matrixFlags, cfg matrix.Config, names []string) (int, error) {
	worst := exitValid
	for _, name := range names {
		one, eng := cfg, f.engine
		eng.server = name
		one.Engine = eng.args()
		if len(names) > 1 {
			one.Dir = filepath.Join(cfg.Dir, serverDirName(name))
			fmt.Fprintf(e.stderr, "lockcheck %s: server %s into %s\n", cfg.Kind, serverDirName(name), one.Dir)
		}
		code, err := executeOn(ctx, e, &eng, one)
		if err != nil || interrupted(ctx) {
			return code, err
		}
		worst = max(worst, code)
	}
	return worst, nil
}

// executeOn opens the engine eng and runs cfg on it.
func executeOn(ctx context.Context, e *env, eng *engineFlags, cfg matrix.Config) (int, error) {
	ctx, closeEngine, err := eng.open(ctx, e.stderr, false)
	if err != nil {
		return exitUsage, err
	}
	defer closeEngine()
	cfg.Server = engineRecord(ctx)
	return execute(ctx, e, cfg)
}

// serverDirName names a server's matrix directory ("default" for "").
func serverDirName(name string) string {
	if name == "" {
		return "default"
	}
	return name
}
