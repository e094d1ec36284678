package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/results"
)

// Flags whose value means nothing useful exit 2 naming the flag, before
// anything starts (no Redis needed).
func TestRunFlagValidation(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--duration", "0"}, "--duration 0"},
		{[]string{"run", "--scenario", "no-faults", "--duration", "0s"}, "--duration 0"},
		{[]string{"run", "--max-wait", "-1s"}, `"-1s" is negative`},
		{[]string{"run", "--max-wait", "-5ms", "--subject", "fair"}, "max-wait"},
		{[]string{"run", "--max-wait", "0"}, `say "off" for no bound`},
		{[]string{"run", "--clients", "100000"}, "--clients 100000"},
		{[]string{"run", "--clients", "11", "--workload", "counter", "--subject", "reentrant"}, "want 1.."},
		{[]string{"run", "--threads-per-process", "-1"}, "--threads-per-process: -1"},
		{[]string{"run", "--threads-per-process", "100000"}, "--threads-per-process: 100000"},
		{[]string{"hunt", "--subject", "reentrant", "--threads-per-process", "-2"}, "--threads-per-process -2"},
	} {
		code, _, stderr := lockcheck(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr does not say %q:\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// lockcheckUntil runs the command in-process with a context cancelled
// after d, as SIGINT cancels main's.
func lockcheckUntil(t *testing.T, d time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	timer := time.AfterFunc(d, cancel)
	defer timer.Stop()
	var out, errOut bytes.Buffer
	code := run(ctx, &env{stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

// An interrupted run says so and exits 2, with the verdict of what ran
// never "valid" and the run directory written.
func TestInterruptedRunExits2(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	out := t.TempDir()
	start := time.Now()
	code, stdout, stderr := lockcheckUntil(t, 1500*time.Millisecond, "run", "--redis", srv.Addr(), "--subject", "reentrant",
		"--workload", "counter", "--duration", "20s", "--seed", "3", "--out", out, "--json")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the interrupted run took %v", took)
	}
	if code != exitInterrupted || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("exit %d, want %d and a word about the interruption\n%s\n%s", code, exitInterrupted, stdout, stderr)
	}
	var sums []results.Summary
	if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 1 {
		t.Fatalf("stdout is not the JSON summaries (%v):\n%s", err, stdout)
	}
	if v := sums[0].Verdict(); v == "valid" {
		t.Errorf("an interrupted run is reported %s", v)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "runs", "counter-reentrant", "*-3"))
	if len(dirs) != 1 {
		t.Fatalf("run directories: %v", dirs)
	}
	cfg, err := os.ReadFile(filepath.Join(dirs[0], "config.json"))
	if err != nil || !strings.Contains(string(cfg), "interrupted after") {
		t.Errorf("config.json does not record the interruption (%v):\n%s", err, cfg)
	}
}

// An interrupted scenario run does not claim its verdict was as expected,
// and exits 2; with --json its stdout is the JSON alone.
func TestInterruptedScenarioExits2(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	code, stdout, stderr := lockcheckUntil(t, 2*time.Second, "run", "--scenario", "no-faults", "--subject", "reentrant",
		"--duration", "20s", "--seed", "3", "--out", t.TempDir())
	if code != exitInterrupted || strings.Contains(stdout+stderr, "as expected") || !strings.Contains(stdout, "interrupted") {
		t.Fatalf("exit %d, want %d, no 'as expected'\n%s\n%s", code, exitInterrupted, stdout, stderr)
	}
}

// With --json, a scenario run's stdout is pure JSON (its status lines go
// to stderr).
func TestScenarioJSONStdoutIsJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	code, stdout, stderr := lockcheck(t, "run", "--scenario", "no-faults", "--subject", "reentrant,redlock",
		"--duration", "1s", "--seed", "3", "--out", t.TempDir(), "--json")
	if code != exitValid {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var sums []results.Summary
	if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 1 {
		t.Fatalf("stdout is not the JSON summaries (%v):\n%s", err, stdout)
	}
	if !strings.Contains(stderr, "as expected") || !strings.Contains(stderr, "skipped") {
		t.Errorf("stderr lacks the status lines:\n%s", stderr)
	}
}

// --redis takes its password from LOCKCHECK_REDIS_PASSWORD when the URL
// has none; a URL's own password wins.
func TestRedisPasswordFromEnvironment(t *testing.T) {
	t.Setenv(envRedisPassword, "from-env")
	for _, tc := range []struct{ url, want string }{
		{"127.0.0.1:6379", "from-env"},
		{"redis://127.0.0.1:6379/0", "from-env"},
		{"redis://:in-url@127.0.0.1:6379/0", "in-url"},
	} {
		a, err := parseRedisFlag(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Options().Password; got != tc.want {
			t.Errorf("%s: password %q, want %q", tc.url, got, tc.want)
		}
		if strings.Contains(a.Redacted(), tc.want) {
			t.Errorf("%s: redacted form shows the password: %s", tc.url, a.Redacted())
		}
	}
}
