package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/hunt"
)

// bisectFind is a committed run directory holding a find: Redisson 3.16.2,
// seed 1, invalid (a refusal on the side lock of cancelled acquires).
const committedFind = "../../results/findings/redisson-3.16.2-interrupted-trylock/replay-refusal"

// cleanRun copies committedFind's config and history beside a result.json
// whose verdict is valid: a run directory without a find.
func cleanRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"config.json", "history.jsonl"} {
		b, err := os.ReadFile(filepath.Join(committedFind, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := `{"subject":"redisson@3.16.2","release":"3.16.2","workload":"hunt","seed":1,"report":{"verdict":"valid"}}`
	if err := os.WriteFile(filepath.Join(dir, "result.json"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestBisectBadInput: every command line that cannot bisect exits 2 with
// a line naming the problem, before any registry is asked.
func TestBisectBadInput(t *testing.T) {
	plan := filepath.Join(committedFind, "..", "shrunk-plan.json")
	huntDir := t.TempDir() // a hunt's directory: plan.json, no run of its own
	if err := os.WriteFile(filepath.Join(huntDir, "plan.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no find", []string{"--good", "3.16.0"}, "name the find"},
		{"no good", []string{"--run", committedFind}, "--good: name a release"},
		{"good not older", []string{"--run", committedFind, "--good", "3.16.2"}, "not older than the bad one: good 3.16.2, bad 3.16.2"},
		{"good newer", []string{"--subject", "redisson", "--plan", plan, "--seed", "1", "--good", "4.7.0", "--bad", "3.19.0"}, "good 4.7.0, bad 3.19.0"},
		{"no release number", []string{"--run", committedFind, "--good", "yesterday"}, `release "yesterday"`},
		{"run without a find", []string{"--run", cleanRun(t), "--good", "3.16.0"}, "holds no find: its verdict is valid"},
		{"hunt dir", []string{"--run", huntDir, "--good", "3.16.0"}, "history.jsonl is missing"},
		{"missing run", []string{"--run", filepath.Join(t.TempDir(), "nope"), "--good", "3.16.0"}, "does not exist"},
		{"run and plan", []string{"--run", committedFind, "--plan", plan, "--good", "3.16.0"}, "not both"},
		{"no seed", []string{"--subject", "redisson", "--plan", plan, "--good", "3.16.0", "--bad", "3.16.2"}, "--seed"},
		{"no plan", []string{"--subject", "redisson", "--seed", "1", "--good", "3.16.0", "--bad", "3.16.2"}, "--plan: give"},
		{"no bad", []string{"--subject", "redisson", "--plan", plan, "--seed", "1", "--good", "3.16.0"}, "--bad: name a release"},
		{"mix", []string{"--subject", "redisson+reentrant", "--plan", plan, "--seed", "1", "--good", "3.16.0", "--bad", "3.16.2"}, "is a mix"},
		{"unknown subject", []string{"--subject", "nope", "--plan", plan, "--seed", "1", "--good", "3.16.0", "--bad", "3.16.2", "--budget", "1m"}, `unknown subject "nope"`},
		{"one release only", []string{"--subject", "reentrant", "--plan", plan, "--seed", "1", "--good", "1.0.0", "--bad", "1.1.0", "--budget", "1m"}, "runs one release only"},
		{"replays", []string{"--run", committedFind, "--good", "3.16.0", "--replays", "0"}, "--replays 0"},
		{"budget", []string{"--run", committedFind, "--good", "3.16.0", "--budget", "0s"}, "--budget 0s"},
		{"bug and signature", []string{"--run", committedFind, "--good", "3.16.0", "--bug", "redisson-3.20.1-interrupted-acquire-renewed", "--signature", "refusal/refused-free/*/*"}, "not both"},
		{"no such shape", []string{"--run", committedFind, "--good", "3.16.0", "--signature", "refusal/refused-nothing/*/*"}, `--signature "refusal/refused-nothing/*/*"`},
		{"a signature the run lacks", []string{"--run", committedFind, "--good", "3.16.0", "--signature", "contract/renewed-missing/*/*"}, "does not show --signature contract/renewed-missing/*/*"},
		{"short duration", []string{"--subject", "redisson", "--plan", plan, "--seed", "1", "--duration", "1s", "--good", "3.16.0", "--bad", "3.16.2"}, "--duration 1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lockcheck(t, append([]string{"bisect"}, tc.args...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if !strings.HasPrefix(first, "lockcheck bisect: ") || !strings.Contains(first, tc.want) {
				t.Errorf("stderr's first line %q does not name %q", first, tc.want)
			}
			if stdout != "" {
				t.Errorf("stdout on bad input: %q", stdout)
			}
		})
	}
}

// TestBisectReadsRunDir: a run directory gives the find's subject, seed,
// duration, plan and report, and --bad defaults to its release.
func TestBisectReadsRunDir(t *testing.T) {
	f, err := parseBisectFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, []string{"--run", committedFind, "--good", "3.16.0"})
	if err != nil {
		t.Fatal(err)
	}
	find, err := f.loadFind()
	if err != nil {
		t.Fatal(err)
	}
	if find.subject != "redisson" || f.bad != "3.16.2" || find.draw.Seed != 1 || find.draw.Duration.Seconds() != 5 || find.draw.Plan.Processes == 0 {
		t.Errorf("find %s, bad %s, draw %+v", find.subject, f.bad, find.draw)
	}
	if find.report == nil || find.report.Verdict != model.Invalid {
		t.Errorf("report %+v, want the run's invalid one", find.report)
	}
	var out, errOut bytes.Buffer
	if code := run(t.Context(), &env{stdout: &out, stderr: &errOut, validateOnly: true}, []string{"bisect", "--run", committedFind, "--good", "3.16.0"}); code != exitValid {
		t.Errorf("validate-only: exit %d, stderr:\n%s", code, errOut.String())
	}
}

// TestFindMatcher draws the cases just inside and just outside the rule:
// a replay shows the find when one of its violations has the find's
// class, shape and ops, beyond a fault when the find was, whatever faults
// overlap it.
func TestFindMatcher(t *testing.T) {
	acq := model.Op{Process: 1, Lock: "L", Kind: model.Acquire, Outcome: model.Fail}
	rel := model.Op{Process: 1, Lock: "L", Kind: model.Release, Outcome: model.OK}
	hiccup, drop := model.Fault{Name: "hiccup"}, model.Fault{Name: "client-conn-kill"}
	ex := func(shape model.Shape, op model.Op, beyond bool, fs ...model.Fault) model.Example {
		return model.Example{Lock: "L", Class: model.ClassRefusal, Shape: shape, Ops: []model.Op{op}, Faults: fs, Beyond: beyond}
	}
	rep := func(exs ...model.Example) model.Report {
		return model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid, Class: model.ClassRefusal, Examples: exs}}}
	}
	refused := ex(model.ShapeRefusedFree, acq, true, drop)
	find := rep(refused)
	for _, c := range []struct {
		name  string
		find  *model.Report
		trial hunt.Trial
		want  bool
	}{
		{"the same violation", &find, hunt.Trial{Find: true, Report: rep(refused)}, true},
		{"beyond other faults", &find, hunt.Trial{Find: true, Report: rep(ex(model.ShapeRefusedFree, acq, true, hiccup, drop))}, true},
		{"and another violation too", &find, hunt.Trial{Find: true, Report: rep(ex(model.ShapeWaitOnFree, acq, false), refused)}, true},
		{"not a find", &find, hunt.Trial{Find: false, Report: rep(refused)}, false},
		{"another shape", &find, hunt.Trial{Find: true, Report: rep(ex(model.ShapeWaitOnFree, acq, true, drop))}, false},
		{"another op", &find, hunt.Trial{Find: true, Report: rep(ex(model.ShapeRefusedFree, rel, true, drop))}, false},
		{"within the fault", &find, hunt.Trial{Find: true, Report: rep(ex(model.ShapeRefusedFree, acq, false, drop))}, false},
		{"a find within its fault matches one beyond", ptr(rep(ex(model.ShapeRefusedFree, acq, false, hiccup))), hunt.Trial{Find: true, Report: rep(refused)}, true},
		{"no violation in the find", ptr(model.Report{Verdict: model.Valid}), hunt.Trial{Find: true, Report: rep(refused)}, true},
		{"no report: any find", nil, hunt.Trial{Find: true, Report: rep(refused)}, true},
		{"no report: not a find", nil, hunt.Trial{Find: false}, false},
	} {
		if got := findMatcher(c.find)(c.trial); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestBisectReadsScenarioRun: a scenario's run directory gives the
// scenario (expect.json), and its find must miss the expectation.
func TestBisectReadsScenarioRun(t *testing.T) {
	dir := "../../results/findings/bisect-2026-11-29/client-interrupt-4.7.0"
	f, err := parseBisectFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, []string{"--run", dir, "--good", "3.19.0"})
	if err != nil {
		t.Fatal(err)
	}
	find, err := f.loadFind()
	if err != nil {
		t.Fatal(err)
	}
	if find.subject != "redisson" || f.bad != "4.7.0" || find.draw.Seed != 4 || find.draw.Scenario == nil || find.draw.Scenario.Name != "client-interrupt" {
		t.Errorf("find %s, bad %s, draw %+v", find.subject, f.bad, find.draw)
	}
	if find.report == nil || !find.report.Beyond() {
		t.Errorf("report %+v, want the run's, beyond the fault", find.report)
	}
}

// TestBisectReadsHuntScenarioRun: a hunt's scenario run writes no
// expect.json; its config's workload names the scenario, which the
// bisection replays (not its plan alone, without the faults).
func TestBisectReadsHuntScenarioRun(t *testing.T) {
	dir := "../../results/findings/bisect-2026-11-30/pause-mix-redisson-3.10.6"
	f, err := parseBisectFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, []string{"--run", dir, "--good", "3.10.0"})
	if err != nil {
		t.Fatal(err)
	}
	find, err := f.loadFind()
	if err != nil {
		t.Fatal(err)
	}
	if find.subject != "redisson" || f.bad != "3.10.6" || find.draw.Seed != 2611300 || find.draw.Scenario == nil || find.draw.Scenario.Name != "pause-mix" {
		t.Errorf("find %s, bad %s, draw %+v", find.subject, f.bad, find.draw)
	}
}

// TestBisectBugMatcher: with --bug, a replay shows the find only with one
// of the catalog bug's signatures, not with the find's own (another bug of
// the same release, met by the same plan, does not count); a bug of
// another subject, one the catalog lacks, or one the run does not show, is
// a usage error.
func TestBisectBugMatcher(t *testing.T) {
	parse := func(args ...string) (bisectFind, error) {
		f, err := parseBisectFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}, append([]string{"--run", committedFind, "--good", "3.16.0", "--catalog", "../../results/known-bugs.json"}, args...))
		if err != nil {
			return bisectFind{}, err
		}
		return f.loadFind()
	}
	find, err := parse("--bug", "redisson-3.20.1-interrupted-acquire-renewed")
	if err != nil {
		t.Fatal(err)
	}
	rep := oneViolation
	checkMatcher(t, find.matcher(), []matcherCase{
		{"the bug's signature", hunt.Trial{Find: true, Report: rep(model.ClassRefusal, model.ShapeRefusedFree)}, true},
		{"the bug's, in a replay its scenario expected", hunt.Trial{Find: false, Report: rep(model.ClassRefusal, model.ShapeRefusedFree)}, true},
		{"another bug's signature", hunt.Trial{Find: true, Report: rep(model.ClassSafety, model.ShapeDoubleGrant)}, false},
	})
	for _, bad := range []string{"no-such-bug", "redsync-v4.0.3-unlock-extend-always-true", "redisson-3.43.0-watchdog-stops-after-failed-renewal"} {
		if _, err := parse("--bug", bad); !errors.As(err, new(usageError)) {
			t.Errorf("--bug %s: %v, want a usage error", bad, err)
		}
	}
}

// TestBisectSignatureMatcher: with --signature, a replay shows the find
// only with a violation one of the patterns fits, and only when it is a
// find: one violation of a find that shows several is bisected alone.
func TestBisectSignatureMatcher(t *testing.T) {
	f, err := parseBisectFlags(&env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}},
		[]string{"--run", committedFind, "--good", "3.16.0", "--signature", "contract/renewed-missing/*/*, refusal/refused-free/acquire/*"})
	if err != nil {
		t.Fatal(err)
	}
	find, err := f.loadFind()
	if err != nil {
		t.Fatal(err)
	}
	if len(find.patterns) != 2 {
		t.Fatalf("patterns %v, want 2", find.patterns)
	}
	rep := oneViolation
	checkMatcher(t, find.matcher(), []matcherCase{
		{"one pattern's violation", hunt.Trial{Find: true, Report: rep(model.ClassRefusal, model.ShapeRefusedFree)}, true},
		{"the other's", hunt.Trial{Find: true, Report: rep(model.ClassContract, model.ShapeRenewedMissing)}, true},
		{"a violation of the find that no pattern names", hunt.Trial{Find: true, Report: rep(model.ClassSafety, model.ShapeDoubleGrant)}, false},
		{"not a find", hunt.Trial{Find: false, Report: rep(model.ClassRefusal, model.ShapeRefusedFree)}, false},
	})
}

// oneViolation is an invalid report with one violation, of class and
// shape, on a failed acquire.
func oneViolation(class model.Class, shape model.Shape) model.Report {
	acq := model.Op{Process: 1, Lock: "L", Kind: model.Acquire, Outcome: model.Fail}
	ex := model.Example{Lock: "L", Class: class, Shape: shape, Ops: []model.Op{acq}}
	return model.Report{Verdict: model.Invalid, Results: []model.Result{{Checker: model.CheckLinearizable, Verdict: model.Invalid, Class: class, Examples: []model.Example{ex}}}}
}

// matcherCase is a replay and whether a bisection's predicate says it
// shows the find.
type matcherCase struct {
	name  string
	trial hunt.Trial
	want  bool
}

func checkMatcher(t *testing.T, match func(hunt.Trial) bool, cases []matcherCase) {
	t.Helper()
	for _, c := range cases {
		if got := match(c.trial); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
