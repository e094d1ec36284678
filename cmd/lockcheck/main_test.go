package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// TestMain fails the tests if a goroutine outlives them. Started as
// `<test binary> driver …` it is lockcheck itself: the go-reentrant
// subject runs os.Executable() as its driver, which in a test is this
// binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "driver" {
		main()
	}
	if err := assemble(); err != nil { // what main wires, before any test runs
		panic(err)
	}
	reg, err := catalog.Subjects.With(catalog.MutantBase()) // the catch-rate tests run the mutants' base too
	if err != nil {
		panic(err)
	}
	catalog.ServeFromEnv(reg) // process pauses serve Go locks from this binary
	goleak.VerifyTestMain(m)
}

// lockcheck runs the command in-process and returns its exit status and output.
func lockcheck(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(t.Context(), &env{stdout: &out, stderr: &errOut}, args)
	return code, out.String(), errOut.String()
}

func TestBadInputExits2(t *testing.T) {
	corrupt := t.TempDir()
	if err := os.WriteFile(filepath.Join(corrupt, "history.jsonl"), []byte("{\"header\":{\"version\":1}}\nnot json\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no command", nil, ""},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"unknown subject", []string{"run", "--subject", "nope"}, `unknown subject "nope"`},
		{"unknown workload", []string{"run", "--workload", "nope"}, `unknown workload "nope"`},
		{"bad duration", []string{"run", "--duration", "soon"}, `--duration "soon": want a duration`},
		{"negative duration", []string{"run", "--duration", "-5s"}, "negative"},
		{"too short duration", []string{"run", "--duration", "1ms"}, "too short"},
		{"bad persistence", []string{"run", "--persistence", "rdb"}, "unknown persistence"},
		{"bad redis url", []string{"run", "--redis", "redis://user:hunter2@[::1"}, "--redis"},
		{"unreachable redis", []string{"run", "--redis", "127.0.0.1:1", "--duration", "1s"}, "unreachable"},
		{"subject needs replicas", []string{"run", "--subject", "reentrant-wait"}, "needs a master with replicas"},
		{"subject needs nodes", []string{"run", "--subject", "redlock"}, "needs independent nodes"},
		{"stray argument", []string{"run", "extra"}, "unexpected arguments: extra"},
		{"unknown server", []string{"run", "--server", "redis-5.0"}, `unknown server "redis-5.0"`},
		{"unknown backend", []string{"run", "--backend", "vm"}, `--backend "vm": want process or container`},
		{"image without container", []string{"run", "--image", "redis:7"}, "only with --backend container"},
		{"nightly unknown server", []string{"nightly", "--server", "nope"}, `unknown server "nope"`},
		{"bench servers with redis", []string{"bench", "--servers", "redis-7.0", "--redis", "127.0.0.1:1"}, "drop --redis"},
		{"bench unknown servers", []string{"bench", "--servers", "redis-7.0,nope"}, `unknown server "nope"`},
		{"scoreboard unknown servers", []string{"scoreboard", "--servers", "redis-7.0,nope"}, `--servers: unknown server "nope"`},
		{"scoreboard servers twice", []string{"scoreboard", "--servers", "valkey-8.1,valkey-8.1"}, "valkey-8.1 twice"},
		{"scoreboard server and servers", []string{"scoreboard", "--server", "redis-6.2", "--servers", "valkey-8.1"}, "give one of them"},
		{"nightly unknown servers", []string{"nightly", "--servers", "nope"}, `--servers: unknown server "nope"`},
		{"check without dir", []string{"check"}, "want exactly one run directory"},
		{"check missing dir", []string{"check", filepath.Join(t.TempDir(), "nope")}, "nope"},
		{"check corrupt history", []string{"check", corrupt}, "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lockcheck(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr does not mention %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr leaks the password:\n%s", stderr)
			}
		})
	}
}

func TestHelpExits0(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"run", "--help"}, {"help", "check"}} {
		code, out, _ := lockcheck(t, args...)
		if code != exitValid || !strings.Contains(out, "Usage") {
			t.Errorf("%v: exit %d, output:\n%s", args, code, out)
		}
	}
	code, out, _ := lockcheck(t, "run", "--help")
	if code != exitValid || !strings.Contains(out, "Examples:") {
		t.Errorf("run --help has no examples:\n%s", out)
	}
}

func TestListings(t *testing.T) {
	code, out, _ := lockcheck(t, "subjects")
	for _, want := range []string{"reentrant", "fair", "fenced", "simple", "redsync", "mutant-unlock-no-owner-check", "redisson-semaphore  ", "latch  "} {
		if !strings.Contains(out, want) {
			t.Errorf("subjects does not list %q", want)
		}
	}
	if code != exitValid {
		t.Errorf("subjects: exit %d", code)
	}
	code, out, _ = lockcheck(t, "workloads", "--json")
	if code != exitValid || !strings.Contains(out, `"name": "counter"`) {
		t.Errorf("workloads --json: exit %d\n%s", code, out)
	}
}

// TestRunAndCheck runs a reference lock (valid, exit 0) and a mutant
// (invalid, exit 1) against a real redis-server given with --redis, then
// re-checks the saved run directories.
func TestRunAndCheck(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "run", "--redis", srv.Addr(), "--subject", "reentrant", "--workload", "counter",
		"--duration", "2s", "--seed", "5", "--out", out)
	if code != exitValid {
		t.Fatalf("reentrant: exit %d\n%s\n%s", code, stdout, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "runs", "counter-reentrant", "*-5"))
	if len(dirs) != 1 {
		t.Fatalf("run directories: %v", dirs)
	}
	for _, f := range []string{"config.json", "history.jsonl", "result.json", "summary.md", "history.html", "latency.png", "throughput.png"} {
		if _, err := os.Stat(filepath.Join(dirs[0], f)); err != nil {
			t.Errorf("run directory lacks %s: %v", f, err)
		}
	}
	if code, stdout, stderr := lockcheck(t, "check", dirs[0]); code != exitValid {
		t.Errorf("check %s: exit %d\n%s\n%s", dirs[0], code, stdout, stderr)
	}

	code, stdout, stderr = lockcheck(t, "run", "--redis", srv.Addr(), "--subject", "mutant-check-then-set",
		"--workload", "counter", "--duration", "3s", "--seed", "5", "--out", out, "--json")
	if code != exitInvalid {
		t.Fatalf("mutant: exit %d, want %d\n%s\n%s", code, exitInvalid, stdout, stderr)
	}
	if !strings.Contains(stdout, `"verdict": "invalid"`) {
		t.Errorf("mutant JSON summary has no invalid verdict:\n%s", stdout)
	}
	dirs, _ = filepath.Glob(filepath.Join(out, "runs", "counter-mutant-check-then-set", "*-5"))
	if len(dirs) != 1 {
		t.Fatalf("mutant run directories: %v", dirs)
	}
	if code, _, _ := lockcheck(t, "check", dirs[0]); code != exitInvalid {
		t.Errorf("check of the mutant's run: exit %d, want %d", code, exitInvalid)
	}
}
