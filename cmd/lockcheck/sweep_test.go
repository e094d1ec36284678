package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `lockcheck run` sweeps what dead runs left before it starts anything.
func TestRunSweepsDeadRunsLeftovers(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, fmt.Sprintf("lockcheck-sentinel-%d-42", cmd.Process.Pid))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lockcheck(t, "run", "--duration", "0")
	if code != exitUsage {
		t.Errorf("exit %d", code)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) || !strings.Contains(stderr, "removed 1 temporary directories") {
		t.Errorf("dead run's dir not swept (%v):\n%s", err, stderr)
	}
}

// `lockcheck sweep` (for cron) and `lockcheck hunt` sweep what dead runs
// left, including a directory named by a pid a live process has since
// taken (its start time differs).
func TestSweepCommandAndHuntSweep(t *testing.T) {
	for _, args := range [][]string{{"sweep"}, {"hunt", "--no-such-flag"}} {
		t.Run(args[0], func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			if _, err := os.Stat("/proc/self/stat"); err != nil {
				t.Skip("no /proc")
			}
			dir := filepath.Join(tmp, fmt.Sprintf("lockcheck-redis-%d-1-42", os.Getpid())) // our pid, another start time
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := lockcheck(t, args...)
			if args[0] == "sweep" && code != exitValid {
				t.Errorf("exit %d\n%s", code, stderr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) || !strings.Contains(stderr, "removed 1 temporary directories") {
				t.Errorf("dead run's dir not swept (%v):\n%s", err, stderr)
			}
		})
	}
}
