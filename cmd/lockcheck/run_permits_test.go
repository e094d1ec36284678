package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/workloads/permits"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// `run` sends semaphores and latches, at a release or in a mixed fleet, to
// the permits runner, and locks (at a release too) to the lock runner; a
// command line that mixes both is refused.
func TestRoutesToPermits(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  bool
	}{
		{[]string{"redisson-semaphore@3.16.1"}, true},
		{[]string{"redisson-permit-semaphore@latest", "permit-semaphore"}, true},
		{[]string{"latch+redisson-latch@4.7.0"}, true},
		{[]string{"mutant-sem-add-no-wake"}, true},
		{[]string{"redisson@3.16.1"}, false},
		{[]string{"reentrant", "fair"}, false},
		{[]string{"reentrant+redis-py"}, false},
	} {
		got, err := routesToPermits(tc.names)
		if err != nil || got != tc.want {
			t.Errorf("routesToPermits(%v) = %v, %v; want %v", tc.names, got, err, tc.want)
		}
	}
	if _, err := routesToPermits([]string{"semaphore", "reentrant"}); err == nil {
		t.Error("a semaphore and a lock in one run: no error")
	}
}

// A permits run refuses what it cannot honour before it starts anything:
// exit 2, naming the cause.
func TestRunPermitsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"lock and semaphore", []string{"--subject", "semaphore,reentrant"}, "run them separately"},
		{"lock flag", []string{"--subject", "semaphore", "--clients", "3"}, "--clients: not for semaphores"},
		{"other workload", []string{"--subject", "latch", "--workload", "counter"}, "permits workload only"},
		{"port at a release", []string{"--subject", "semaphore@1.0.0"}, "runs one release only"},
		{"no version", []string{"--subject", "redisson-semaphore@"}, "no version after"},
		{"fleet of two objects", []string{"--subject", "semaphore+latch"}, "a fleet shares one object"},
		{"unknown release", []string{"--subject", "redisson-semaphore@0.0.1"}, "redisson-semaphore@0.0.1"},
		{"scenario not for semaphores", []string{"--subject", "semaphore", "--scenario", "sentinel-split-brain"}, "do not apply to semaphores"},
		{"unknown scenario", []string{"--subject", "semaphore", "--scenario", "nope"}, "unknown scenario"},
		{"scenario and redis", []string{"--subject", "semaphore", "--scenario", "client-crash", "--redis", "127.0.0.1:1"}, "builds its own Redis"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lockcheck(t, append([]string{"run", "--out", t.TempDir()}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not mention %q:\n%s", tc.want, stderr)
			}
		})
	}
}

// The Go port of RSemaphore runs valid through `lockcheck run` (exit 0)
// into a run directory that `lockcheck check` judges the same, and a
// mutant whose addPermits wakes nobody is caught (exit 1).
func TestRunPermits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs against redis-server")
	}
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	out := t.TempDir()
	for _, tc := range []struct {
		subject string
		want    int
	}{
		{"semaphore", exitValid},
		{"mutant-sem-add-no-wake", exitInvalid},
	} {
		code, stdout, stderr := lockcheck(t, "run", "--redis", srv.Addr(), "--subject", tc.subject, "--seed", "1", "--out", out)
		if code != tc.want {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", tc.subject, code, tc.want, stdout, stderr)
		}
		if !strings.Contains(stderr, "seed 1, workload permits") {
			t.Errorf("%s: the seed is not printed:\n%s", tc.subject, stderr)
		}
		dirs, _ := filepath.Glob(filepath.Join(out, "runs", "permits-"+tc.subject, "*-1"))
		if len(dirs) != 1 {
			t.Fatalf("%s: run directories: %v", tc.subject, dirs)
		}
		for _, f := range []string{"config.json", "history.jsonl", "result.json", "summary.md", "history.html"} {
			if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
				t.Errorf("%s: run directory lacks %s: %v", tc.subject, f, err)
			}
		}
		if code, stdout, stderr := lockcheck(t, "check", dirs[0]); code != tc.want {
			t.Errorf("check %s: exit %d, want %d\n%s\n%s", dirs[0], code, tc.want, stdout, stderr)
		}
	}
}

// checkPermitsReleaseNames checks that each part of a semaphore or latch
// subject name that names a release (NAME@VERSION) runs other releases,
// without fetching one (the docs' commands).
func checkPermitsReleaseNames(name string) error {
	for _, part := range strings.Split(name, subject.MixSeparator) {
		base, v := subject.SplitVersion(part)
		if v != "" && permits.Versions(base) == nil {
			return fmt.Errorf("%s: %s %v", part, base, subject.ErrNoVersions)
		}
	}
	return nil
}
