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
