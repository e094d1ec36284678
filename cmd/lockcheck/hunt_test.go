package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/workloads"
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
		{"bad budget", []string{"hunt", "--subject", "reentrant", "--budget", "soon"}, `invalid value "soon" for flag -budget`},
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
	good, err := encodePlan(huntPlan(1))
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

// A hunt's draws are a function of its seed; a subject meets only the
// scenarios it must pass.
func TestHuntDrawsAreReproducible(t *testing.T) {
	reentrant, _ := workloads.Subjects.Lookup("reentrant")
	scs := huntScenarios(reentrant)
	if len(scs) == 0 {
		t.Fatal("reentrant must pass some scenario")
	}
	for _, sc := range scs {
		if !sc.Safe && sc.Expectation(reentrant).Detects() {
			t.Errorf("scenario %s expects reentrant caught, yet is drawn", sc.Name)
		}
	}
	mutant, _ := workloads.Subjects.Lookup("mutant-check-then-set")
	if got := huntScenarios(mutant); len(got) != 0 {
		t.Errorf("a mutant must pass no scenario, got %d", len(got))
	}
	a, b := newDrawer(42, scs), newDrawer(42, scs)
	picked := 0
	for i := range 200 {
		sa, ca := a.draw()
		sb, cb := b.draw()
		if sa != sb || (ca == nil) != (cb == nil) || (ca != nil && ca.Name != cb.Name) || sa != 42+int64(i) {
			t.Fatalf("draw %d differs: seed %d/%d", i, sa, sb)
		}
		if ca != nil {
			picked++
		}
	}
	if picked < 25 || picked > 80 {
		t.Errorf("%d scenario draws in 200, want about 50", picked)
	}
}

// Every shrink step terminates, keeps the plan valid and the counter on,
// and leaves a scenario's plan alone.
func TestHuntShrinkStepsKeepCounter(t *testing.T) {
	d := huntDraw{seed: 3, duration: 10e9, plan: huntPlan(3)}
	if d.plan.Phases == nil || d.plan.CancelPercent == 0 {
		t.Fatalf("the hunt plan for seed 3 has no phases or cancels: %+v", d.plan)
	}
	phases := *d.plan.Phases
	for _, st := range shrinkSteps {
		if st.name != "no storms" {
			continue
		}
		if next, ok := st.apply(d); !ok || *d.plan.Phases != phases || next.plan.Phases.Storm != (workloads.Range{}) {
			t.Fatalf("%s: applied %v, changed the original's phases: %v", st.name, ok, *d.plan.Phases != phases)
		}
	}
	for _, st := range shrinkSteps {
		for n := 0; ; n++ {
			next, ok := st.apply(d)
			if !ok {
				break
			}
			if n > 10 {
				t.Fatalf("%s does not terminate", st.name)
			}
			if !next.plan.Counter || next.plan.Validate() != nil || next.duration < minHuntRun {
				t.Fatalf("%s: %+v (valid: %v)", st.name, next, next.plan.Validate())
			}
			d = next
		}
	}
	if d.duration != minHuntRun || d.plan.Processes != 2 || d.plan.TryLockPercent != 0 || d.plan.MaxReentry != 0 ||
		d.plan.Phases != nil || d.plan.CancelPercent != 0 {
		t.Errorf("fully shrunk: %+v", d)
	}
	sc := huntScenarios(workloads.Subject{Name: "reentrant", Kind: workloads.KindReference})[0]
	for _, st := range shrinkSteps[1:] {
		if _, ok := st.apply(huntDraw{scenario: &sc, duration: sc.Duration}); ok {
			t.Errorf("%s edits a scenario's plan", st.name)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"lockcheck", "run", "--plan", "/tmp/a b/plan.json", "it's", ""})
	want := `lockcheck run --plan '/tmp/a b/plan.json' 'it'\''s' ''`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

// A hunt against a mutant finds it, shrinks it, and prints a command that
// fails again.
func TestHuntFindsMutantAndReproduces(t *testing.T) {
	srv := redistest.Start(t, faults.ServerConfig{})
	t.Setenv(envRedisPassword, srv.Password())
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "hunt", "--subject", "mutant-check-then-set", "--budget", "15s", "--run-duration", "3s",
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

// The reproducing command names what the hunt ran: the plan file for a
// plain run, the scenario (and no plan) for a scenario.
func TestHuntReproduceCommand(t *testing.T) {
	h := &hunter{flags: huntFlags{subject: "reentrant+fair", redis: "10.0.0.5:6379"}}
	got := shellJoin(h.reproduce(huntDraw{seed: 9, duration: 2500e6, plan: huntPlan(9)}, "/r/plan.json"))
	if want := "lockcheck run --subject reentrant+fair --seed 9 --duration 2.5s --plan /r/plan.json --redis 10.0.0.5:6379"; got != want {
		t.Errorf("plain:\n got %s\nwant %s", got, want)
	}
	sc := huntScenarios(workloads.Subject{Name: "reentrant", Kind: workloads.KindReference})[0]
	h.flags.redis = ""
	got = shellJoin(h.reproduce(huntDraw{seed: 4, scenario: &sc, duration: 2e9}, ""))
	if want := "lockcheck run --scenario " + sc.Name + " --subject reentrant+fair --seed 4 --duration 2s"; got != want {
		t.Errorf("scenario:\n got %s\nwant %s", got, want)
	}
}
