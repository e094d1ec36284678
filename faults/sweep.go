package faults

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// Temporary directories carry the pid and start time of the process that
// made them (owner), so that SweepStale can tell a dead run's leftovers
// from a live run's, even when a new process got the dead one's pid.
var (
	redisDirPattern    = func() string { return fmt.Sprintf("lockcheck-redis-%d-%d-", self().pid, self().start) }
	sentinelDirPattern = func() string { return fmt.Sprintf("lockcheck-sentinel-%d-%d-", self().pid, self().start) }
)

// The owner's start time is optional in what they match: names made
// before it was recorded are judged by their pid alone.
var (
	staleTableRE = regexp.MustCompile(`^table inet (lockcheck_(\d+)(?:_(\d+))?_\d+)$`)
	staleDirRE   = regexp.MustCompile(`^lockcheck-(?:redis|sentinel)-(\d+)-(?:(\d+)-)?`)
)

// Swept is what SweepStale removed.
type Swept struct {
	// Tables are the nftables tables (family inet) deleted.
	Tables []string
	// Dirs are the temporary directories removed.
	Dirs []string
	// Clocks are the Clock files reset to 0 and removed (see sweepClocks).
	Clocks []string
}

// SweepStale removes what lockcheck processes that are gone left behind
// (a SIGKILL skips every Close): the nftables tables
// "lockcheck_<pid>_<start>_<n>" of Firewalls, whose drop rules would
// otherwise keep cutting 127.x links for good, and the temporary
// directories "lockcheck-redis-<pid>-<start>-*" and
// "lockcheck-sentinel-<pid>-<start>-*" in tmpDir ("" : os.TempDir()). Only
// what names a process that no longer runs is touched — no process has the
// pid, or the one that has it started at another time — so a running
// lockcheck's table and directories stay. (Their redis-servers died with
// them: Pdeathsig.) Without nft or CAP_NET_ADMIN the tables are left alone
// silently; stale Clock files are healed and removed (sweepClocks); the
// error reports what could not be removed. Bounded by ctx
// (each nft call by DefaultNftTimeout when ctx has no deadline).
func SweepStale(ctx context.Context, tmpDir string) (Swept, error) {
	var sw Swept
	var errs []error
	tables, err := staleTables(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	for _, t := range tables {
		if _, err := nft(ctx, "", "delete", "table", "inet", t); err != nil && !strings.Contains(err.Error(), "No such file") {
			errs = append(errs, err)
			continue
		}
		sw.Tables = append(sw.Tables, t)
	}
	if tmpDir == "" {
		tmpDir = os.TempDir()
	}
	entries, err := os.ReadDir(tmpDir)
	if err != nil {
		errs = append(errs, fmt.Errorf("sweep %s: %w", tmpDir, err))
	}
	for _, e := range entries {
		m := staleDirRE.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		if o, ok := parseOwner(m[1], m[2]); !ok || !o.gone() {
			continue
		}
		p := filepath.Join(tmpDir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, fmt.Errorf("sweep: %w", err))
			continue
		}
		sw.Dirs = append(sw.Dirs, p)
	}
	clocks, clockErrs := sweepClocks(tmpDir)
	sw.Clocks = clocks
	errs = append(errs, clockErrs...)
	return sw, errors.Join(errs...)
}

// staleTables lists the lockcheck tables whose owner process is gone; with
// no usable nft it lists none.
func staleTables(ctx context.Context) ([]string, error) {
	if _, err := exec.LookPath("nft"); err != nil {
		return nil, nil
	}
	out, err := nft(ctx, "", "list", "tables", "inet")
	if err != nil {
		if strings.Contains(err.Error(), "Operation not permitted") {
			return nil, nil // not root: nothing of ours can be there either way
		}
		return nil, fmt.Errorf("sweep: %w", err)
	}
	var stale []string
	for _, line := range strings.Split(out, "\n") {
		m := staleTableRE.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if o, ok := parseOwner(m[2], m[3]); ok && o.gone() {
			stale = append(stale, m[1])
		}
	}
	return stale, nil
}
