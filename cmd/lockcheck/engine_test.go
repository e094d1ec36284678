package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults/container"
	"github.com/lockcheck/lockcheck/faults/servers"
)

// TestRunOnEachServer runs no-faults on every server of the axis this
// machine has (make deps installs them all) and checks that config.json
// records it.
func TestRunOnEachServer(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts servers (skipped with -short)")
	}
	ran := 0
	for _, name := range servers.Names {
		if _, err := servers.Resolve(t.Context(), name); errors.Is(err, servers.ErrMissing) {
			t.Logf("%s: %v", name, err)
			continue
		}
		ran++
		out := t.TempDir()
		code, stdout, stderr := lockcheck(t, "run", "--server", name, "--scenario", "no-faults", "--subject", "reentrant",
			"--duration", "2s", "--seed", "3", "--out", out)
		if code != exitValid {
			t.Errorf("--server %s: exit %d\n%s\n%s", name, code, stdout, stderr)
			continue
		}
		assertRecorded(t, out, `"server":"`+name+` (`, `"backend":"process"`)
	}
	if ran == 0 {
		t.Skip("skipping: no server of the axis is installed (make deps)")
	}
}

// TestRunContainerBackend runs a pause scenario with its server in a
// container, and checks that the pause acted on the container: the fault
// windows of the history name it.
func TestRunContainerBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: needs a Docker engine (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := container.Available(ctx); err != nil {
		t.Skipf("skipping: %v (make deps starts one: scripts/docker-engine.sh)", err)
	}
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "run", "--backend", "container", "--scenario", "redis-pause-short", "--subject", "reentrant",
		"--duration", "3s", "--seed", "2", "--out", out)
	if code != exitValid {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	assertRecorded(t, out, `"backend":"container"`, `"name":"redis-pause","target":"127.0.0.1:`, ` in container `)
}

// assertRecorded checks that the history of the one run under out holds
// every want.
func assertRecorded(t *testing.T, out string, wants ...string) {
	t.Helper()
	hs, _ := filepath.Glob(filepath.Join(out, "runs", "*", "*", "history.jsonl"))
	if len(hs) != 1 {
		t.Fatalf("histories under %s: %v", out, hs)
	}
	b, err := os.ReadFile(hs[0])
	if err != nil {
		t.Fatal(err)
	}
	h := strings.ReplaceAll(string(b), `\"`, `"`) // the config is quoted in the header
	for _, w := range wants {
		if !strings.Contains(h, w) {
			t.Errorf("%s lacks %s", hs[0], w)
		}
	}
}

// TestEngineArgs: a matrix cell's command repeats the engine flags that
// differ from the defaults, so a finding reruns on the same server.
func TestEngineArgs(t *testing.T) {
	for _, tc := range []struct {
		f    engineFlags
		want string
	}{
		{engineFlags{backend: "process"}, ""},
		{engineFlags{server: "valkey-8.1", backend: "process"}, " --server valkey-8.1"},
		{engineFlags{server: "redis-6.2", backend: "container", image: "redis:6.2"}, " --server redis-6.2 --backend container --image redis:6.2"},
	} {
		if got := tc.f.args(); got != tc.want {
			t.Errorf("%+v.args() = %q, want %q", tc.f, got, tc.want)
		}
	}
}
