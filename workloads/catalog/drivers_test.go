package catalog

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// installed skips the test with the reason when the shipped driver called
// name cannot run here (make deps installs what it needs; CI runs it).
func installed(t *testing.T, name string) {
	t.Helper()
	for _, d := range Drivers() {
		if d.Name == name {
			if err := d.Check(); err != nil {
				t.Skipf("driver %s cannot run here: %v", name, err)
			}
			return
		}
	}
	t.Fatalf("no shipped driver %q", name)
}

// TestDriverSelftests runs each shipped driver's own protocol self-test
// (every request, not-owner, expiry, EOF, ... against its own redis-server).
func TestDriverSelftests(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs redis-server (skipped with -short)")
	}
	for name, argv := range map[string][]string{
		"node-redisson":     {"node", "selftest.js"},
		"node-redlock":      {"node", "selftest.js"},
		"redis-py":          {debianPython, "selftest.py"},
		"redis-py-latest":   {venvPython, "selftest.py"},
		"pottery-redlock":   {venvPython, "selftest.py"},
		"python-redis-lock": {venvPython, "selftest.py"},
		"rslock":            {debianPython, "selftest.py"}, // the test needs python3-redis, the driver is Rust
	} {
		t.Run(name, func(t *testing.T) {
			installed(t, name)
			dir, err := DriversDir()
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Dir = filepath.Join(dir, name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
			}
		})
	}
}

// TestRedissonNotInstalled: without java, or without the built jar, opening
// a Redisson subject fails with one line naming what is missing and the
// command that installs it.
func TestRedissonNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := needRedisson("target")(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "java is not installed") || !strings.Contains(err.Error(), "make deps") {
		t.Fatalf("without java: %v", err)
	}
	if _, lerr := exec.LookPath("java"); lerr == nil {
		t.Fatal("java found on an empty PATH")
	}
}

// TestRedissonNotBuilt: java alone is not enough: the jar must be built.
func TestRedissonNotBuilt(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java here: TestRedissonNotInstalled covers that case")
	}
	err := needRedisson("target")(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "redisson-driver.jar is not built") || !strings.Contains(err.Error(), "make deps") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("without the jar: %v", err)
	}
}
