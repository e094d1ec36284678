package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

func TestHuntBadInputExits2(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no subject", []string{"hunt"}, "--subject: name the subject"},
		{"unknown subject", []string{"hunt", "--subject", "nope"}, `unknown subject "nope"`},
		{"subject list", []string{"hunt", "--subject", "reentrant,fair"}, "not a list"},
		{"subject needs replicas", []string{"hunt", "--subject", "reentrant-wait"}, "needs a master with replicas"},
		{"bad budget", []string{"hunt", "--subject", "reentrant", "--budget", "soon"}, `--budget "soon": want a duration`},
		{"zero budget", []string{"hunt", "--subject", "reentrant", "--budget", "0s"}, "--budget 0s: want a positive duration"},
		{"short runs", []string{"hunt", "--subject", "reentrant", "--run-duration", "1s"}, "--run-duration 1s: want at least 2s"},
		{"run over budget", []string{"hunt", "--subject", "reentrant", "--budget", "5s"}, "does not fit in --budget 5s"},
		{"bad redis url", []string{"hunt", "--subject", "reentrant", "--redis", "redis://u:hunter2@[::1"}, "--redis"},
		{"stray argument", []string{"hunt", "--subject", "reentrant", "extra"}, "unexpected arguments: extra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lockcheck(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "lockcheck hunt --help") {
				t.Errorf("stderr does not mention %q and the help:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr leaks the password:\n%s", stderr)
			}
		})
	}
}

func TestRunPlanFileBadExits2(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := workloads.EncodePlan(hunt.Plan(1))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"--plan", filepath.Join(dir, "nope.json")}, "nope.json"},
		{"not json", []string{"--plan", write("garbage.json", "processes: 3")}, "garbage.json: not a JSON plan"},
		{"unknown field", []string{"--plan", write("typo.json", `{"procesess": 3}`)}, `unknown field "procesess"`},
		{"two values", []string{"--plan", write("two.json", string(good)+string(good))}, "more than one JSON value"},
		{"invalid plan", []string{"--plan", write("zero.json", `{"processes": 0, "locks": ["a"], "op_timeout": 1000000000}`)}, "processes = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lockcheck(t, append([]string{"run", "--subject", "reentrant"}, tc.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr does not say %q?\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
}

// The hunt runs what its printed command reruns: hunt.PlainConfig is the
// configuration `lockcheck run --subject S --seed N --duration D --plan F`
// builds.
func TestHuntPlainConfigIsRunsConfig(t *testing.T) {
	for _, subject := range []string{"reentrant", "fair", "reentrant+fair", "mutant-check-then-set"} {
		for seed := int64(1); seed <= 5; seed++ {
			plan := hunt.Plan(seed)
			f := huntFlags{subject: subject}
			want, err := f.plainConfig(seed, 2500*time.Millisecond, plan)
			if err != nil {
				t.Fatal(err)
			}
			got, err := hunt.PlainConfig(subject, seed, 2500*time.Millisecond, plan)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s seed %d: hunt.PlainConfig = %+v, %v\nrun builds %+v", subject, seed, got, err, want)
			}
		}
	}
}

// A hunt against a mutant finds it, shrinks it, and prints a command that
// fails again. The mutant's flaw is in the order of one process's own ops
// (a re-entry not counted), not in a race between processes, so its
// shrunk plan fails again whatever the timing of the served processes.
func TestHuntFindsMutantAndReproduces(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "hunt", "--subject", "mutant-reentry-no-count", "--budget", "15s", "--run-duration", "3s",
		"--seed", "11", "--redis", srv.Addr(), "--out", out)
	if code != exitInvalid {
		t.Fatalf("hunt: exit %d, want %d\n%s\n%s", code, exitInvalid, stdout, stderr)
	}
	if !strings.Contains(stderr, "run 1") || !strings.Contains(stdout, `"counter": true`) {
		t.Errorf("no progress line or no plan:\n%s\n%s", stdout, stderr)
	}
	var cmd []string
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "  lockcheck run ") {
			cmd = strings.Fields(line)[1:]
		}
	}
	if len(cmd) == 0 || !strings.Contains(strings.Join(cmd, " "), "--plan "+out) {
		t.Fatalf("no reproducing command with the plan:\n%s", stdout)
	}
	code, rout, rerr := lockcheck(t, append(cmd, "--out", t.TempDir())...)
	if code != exitInvalid {
		t.Errorf("%v: exit %d, want %d\n%s\n%s", cmd, code, exitInvalid, rout, rerr)
	}
}

// A hunt against a reference lock spends its budget and exits 0.
func TestHuntReentrantClean(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a redis-server (skipped with -short)")
	}
	code, stdout, stderr := lockcheck(t, "hunt", "--subject", "reentrant", "--budget", "6s", "--run-duration", "3s",
		"--seed", "3", "--out", t.TempDir())
	if code != exitValid || !strings.Contains(stdout, "no violation in") {
		t.Fatalf("hunt: exit %d, want %d\n%s\n%s", code, exitValid, stdout, stderr)
	}
}
