package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// hashDir is the SHA-256 of every file under dir, by relative path.
func hashDir(t *testing.T, dir string) map[string][sha256.Size]byte {
	t.Helper()
	sums := map[string][sha256.Size]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sums[rel] = sha256.Sum256(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

// sameHashes reports the files of before that after lacks or changed, and
// the files after added.
func sameHashes(t *testing.T, before, after map[string][sha256.Size]byte) {
	t.Helper()
	for name, sum := range before {
		if got, ok := after[name]; !ok || got != sum {
			t.Errorf("%s changed or went", name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s was added", name)
		}
	}
}

// writtenRun writes a whole run directory (config.json, history.jsonl,
// result.json, summary.md, history.html, an empty wire trace) for
// history, as a run does.
func writtenRun(t *testing.T, history string) string {
	t.Helper()
	dir := runDir(t, history)
	run, err := results.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = results.WriteRun(dir, results.RunArtifacts{
		Subject: "reentrant", Workload: "counter", Seed: 1, Config: map[string]any{"config": map[string]any{"subject": "reentrant"}},
		History: run.History, Report: model.Check(run.History, model.Options{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, model.WireFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// `lockcheck check DIR` leaves DIR byte-identical: a committed finding
// (exit 1) and a whole run directory (exit 0), checked plainly, as JSON
// and with --out, which writes the re-check to a new directory.
func TestCheckLeavesRunDirByteIdentical(t *testing.T) {
	finding := filepath.Join(t.TempDir(), "finding")
	if err := os.CopyFS(finding, os.DirFS("../../results/findings/redisson-fair-redis-pause-short-seed105")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		exit int
	}{{writtenRun(t, hdrLine+okAcq+okRel), exitValid}, {finding, exitInvalid}} {
		before := hashDir(t, tc.dir)
		out := filepath.Join(t.TempDir(), "recheck")
		for _, args := range [][]string{{"check", tc.dir}, {"check", "--json", tc.dir}, {"check", "--out", out, tc.dir}} {
			if code, stdout, stderr := lockcheck(t, args...); code != tc.exit {
				t.Errorf("%v: exit %d, want %d\n%s\n%s", args, code, tc.exit, stdout, stderr)
			}
		}
		sameHashes(t, before, hashDir(t, tc.dir))
		for _, f := range []string{results.ConfigFile, results.HistoryFile, results.ResultFile, results.SummaryFile, results.HTMLFile} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("--out lacks %s: %v", f, err)
			}
		}
		for f := range before { // the run's own files, its wire trace included
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("--out lacks the run's %s: %v", f, err)
			}
		}
		if code, _, stderr := lockcheck(t, "check", "--out", out, tc.dir); code != exitUsage || !strings.Contains(stderr, "exists") {
			t.Errorf("--out into an existing directory: exit %d, want %d\n%s", code, exitUsage, stderr)
		}
	}
}

// writeResult records sum as dir/result.json.
func writeResult(t *testing.T, dir string, sum results.Summary) {
	t.Helper()
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.ResultFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recordedValid is the result.json of a valid history, as a run records it.
func recordedValid(t *testing.T) results.Summary {
	t.Helper()
	run, err := results.LoadRun(runDir(t, hdrLine+okAcq+okRel))
	if err != nil {
		t.Fatal(err)
	}
	return results.Summary{Report: model.Check(run.History, model.Options{})}
}

// overlap is a second grant of L while p1 holds it.
const overlap = `{"op":{"p":2,"lock":"L","kind":"acquire","call":5,"ret":6,"outcome":"ok","lease":1000000000}}` + "\n"

// A re-check whose verdict differs from the recorded one says how; a
// re-check of a history cut short says the recorded whole-run verdict
// stands. Neither touches result.json.
func TestCheckComparesWithRecordedVerdict(t *testing.T) {
	for _, tc := range []struct {
		name, history, want string
		exit                int
	}{
		{"differs", hdrLine + okAcq + overlap, "the verdicts differ from those DIR/result.json records: recorded: valid, now: invalid (linearizable: valid → invalid", exitInvalid},
		{"prefix", hdrLine + okAcq + okRel + `{"op":{"p":1,"lock":"L","kind":"acq`, "records the whole run's verdict, valid, which stands", exitUsage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runDir(t, tc.history)
			writeResult(t, dir, recordedValid(t))
			before := hashDir(t, dir)
			code, stdout, stderr := lockcheck(t, "check", dir)
			want := strings.ReplaceAll(tc.want, "DIR", dir)
			if code != tc.exit || !strings.Contains(stderr, want) {
				t.Errorf("exit %d (want %d), stderr should say %q:\n%s\n%s", code, tc.exit, want, stdout, stderr)
			}
			sameHashes(t, before, hashDir(t, dir))
		})
	}
	dir := runDir(t, hdrLine+okAcq+okRel)
	writeResult(t, dir, recordedValid(t))
	if _, _, stderr := lockcheck(t, "check", dir); strings.Contains(stderr, "differs") {
		t.Errorf("a re-check with the recorded verdicts says they differ:\n%s", stderr)
	}
}

// A run directory that records an expectation exits as `run --scenario`
// did: 0 when the verdicts meet it, 1 when not.
func TestCheckJudgesRecordedExpectation(t *testing.T) {
	broken := results.Expectation{Scenario: "client-stall", Subject: "reentrant", Label: "mutex broken", Verdict: model.Invalid}
	valid := results.Expectation{Scenario: "no-faults", Subject: "reentrant", Label: "valid", Verdict: model.Valid}
	for _, tc := range []struct {
		name, history string
		exp           results.Expectation
		exit          int
		want          string
	}{
		{"broken as expected", hdrLine + okAcq + overlap, broken, exitValid, "as expected (mutex broken"},
		{"valid, not as expected", hdrLine + okAcq + okRel, broken, exitInvalid, "NOT as expected (mutex broken): verdict valid"},
		{"valid as expected", hdrLine + okAcq + okRel, valid, exitValid, "as expected (valid)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := runDir(t, tc.history)
			if err := results.WriteExpectation(dir, tc.exp); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := lockcheck(t, "check", dir)
			if code != tc.exit || !strings.Contains(stdout, tc.want) {
				t.Errorf("exit %d (want %d), stdout should say %q:\n%s\n%s", code, tc.exit, tc.want, stdout, stderr)
			}
		})
	}
}

// The expectation a run directory records judges as the scenario's own
// does, for every scenario and reference subject.
func TestRecordedExpectationMatchesScenario(t *testing.T) {
	checkers := []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckFencing, model.CheckFairness,
		model.CheckLiveness, model.CheckContract, model.CheckAllowance}
	reports := []model.Report{{Verdict: model.Unknown}}
	for _, v := range []model.Verdict{model.Valid, model.Unknown} {
		rep := model.Report{Verdict: v}
		for _, c := range checkers {
			rep.Results = append(rep.Results, model.Result{Checker: c, Verdict: v})
		}
		reports = append(reports, rep)
	}
	for i := range checkers {
		rep := model.Report{Verdict: model.Invalid}
		for j, c := range checkers {
			v := model.Valid
			if j == i || (j == len(checkers)-1 && i%2 == 0) {
				v = model.Invalid
			}
			rep.Results = append(rep.Results, model.Result{Checker: c, Verdict: v})
		}
		reports = append(reports, rep)
	}
	for _, sc := range scenario.Catalog() {
		for _, name := range splitList(referenceSubjects) {
			subj, err := catalog.Subjects.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			exp := sc.Expectation(subj)
			rec := expectation(sc.Name, name, exp)
			for _, rep := range reports {
				ok1, why1 := exp.Match(rep)
				ok2, why2 := rec.Match(rep)
				if ok1 != ok2 || why1 != why2 {
					t.Errorf("%s/%s: scenario says %v %q, the record %v %q", sc.Name, name, ok1, why1, ok2, why2)
				}
			}
		}
	}
}

// Every bad input is one line naming what is wrong, then one line pointing
// at --help, and exit 2: never the usage.
func TestBadInputOneClearLine(t *testing.T) {
	existing := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"seed not a number", []string{"run", "--seed", "abc"}, `--seed "abc": want an integer`},
		{"duration not a duration", []string{"run", "--duration", "abc"}, `--duration "abc": want a duration`},
		{"max-wait bogus", []string{"run", "--max-wait", "bogus"}, `--max-wait "bogus": want a duration > 0, "derived" or "off"`},
		{"unknown flag", []string{"run", "--bogus"}, "unknown flag --bogus"},
		{"flag without value", []string{"run", "--seed"}, "--seed needs a value"},
		{"seed out of range", []string{"run", "--seed", "99999999999999999999"}, `--seed "99999999999999999999": value out of range`},
		{"bool flag bad value", []string{"run", "--json=maybe"}, `--json "maybe": want true or false`},
		{"check timeout bogus", []string{"check", "--check-timeout", "soon", existing}, `--check-timeout "soon": want a duration`},
		{"hunt unknown flag", []string{"hunt", "--frobnicate", "1"}, "unknown flag --frobnicate"},
		{"subject repeated", []string{"run", "--subject", "reentrant,reentrant"}, "--subject: reentrant is named twice"},
		{"subject repeated in a scenario", []string{"run", "--scenario", "client-stall", "--subject", "fair,reentrant,fair"}, "--subject: fair is named twice"},
		{"lock and semaphore mixed", []string{"run", "--subject", "reentrant+semaphore"}, "--subject reentrant+semaphore mixes object kinds: a lock (reentrant) and a semaphore or latch (semaphore)"},
		{"semaphore and lock mixed", []string{"run", "--subject", "semaphore+fair"}, "mixes object kinds: a lock (fair) and a semaphore or latch (semaphore)"},
		{"release outside the driver's range", []string{"run", "--subject", "redisson@2.15.2"}, "redisson@2.15.2 is outside what the driver supports, 3.10.0 to 4.x"},
		{"semaphore release outside the driver's range", []string{"run", "--subject", "redisson-semaphore@2.15.2"}, "redisson-semaphore@2.15.2 is outside what the driver supports, 3.10.0 to 4.x"},
		{"hunt release outside the driver's range", []string{"hunt", "--subject", "redisson-fenced@3.20.0"}, "redisson-fenced@3.20.0 is outside what the driver supports, 3.25.0 to 4.x"},
		{"check into an existing --out", []string{"check", "--out", existing, existing}, "--out " + existing + " exists"},
		{"check into the run directory", []string{"check", "--out", filepath.Join(existing, "recheck"), existing}, "is inside " + existing},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lockcheck(t, tc.args...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			help := "Run 'lockcheck " + tc.args[0] + " --help' for usage."
			if code != exitUsage || stdout != "" || len(lines) != 2 || !strings.Contains(lines[0], tc.want) || lines[1] != help {
				t.Errorf("exit %d (want %d); want one line saying %q, then %q, nothing on stdout; got:\nstderr:\n%s\nstdout:\n%s",
					code, exitUsage, tc.want, help, stderr, stdout)
			}
		})
	}
}

// runDirsUnder are the run directories under out/runs.
func runDirsUnder(t *testing.T, out string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(out, "runs", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// Two `lockcheck run` processes started together with the same subject,
// seed and --out each get a run directory of their own, and each checks
// valid.
func TestConcurrentRunsOwnDirectories(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	srv := redistest.Start(t, faults.ServerConfig{})
	out := t.TempDir()
	cmds := make([]*exec.Cmd, 2)
	outputs := make([]bytes.Buffer, 2)
	for i := range cmds {
		cmds[i] = cliCommand(t, "run", "--redis", srv.Addr(), "--subject", "reentrant", "--workload", "counter",
			"--duration", "1s", "--seed", "4", "--out", out)
		cmds[i].Env = append(cmds[i].Env, envRedisPassword+"="+srv.Password())
		cmds[i].Stdout, cmds[i].Stderr = &outputs[i], &outputs[i]
	}
	var wg sync.WaitGroup
	errs := make([]error, len(cmds))
	for i, c := range cmds {
		wg.Go(func() { errs[i] = c.Run() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, outputs[i].String())
		}
	}
	dirs := runDirsUnder(t, out)
	if len(dirs) != 2 {
		t.Fatalf("run directories: %v, want 2", dirs)
	}
	for _, d := range dirs {
		if code, stdout, stderr := lockcheck(t, "check", d); code != exitValid {
			t.Errorf("check %s: exit %d\n%s\n%s", d, code, stdout, stderr)
		}
	}
}

// A scenario run records its expectation: `check` of its directory exits
// as the run did (0: as expected), leaves the directory as it was, and the
// summary's headline says the run went as expected.
func TestScenarioRunRechecksAsExpected(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	for _, sc := range []string{"client-stall", "clock-jump-forward"} {
		t.Run(sc, func(t *testing.T) {
			out := t.TempDir()
			runCode, stdout, stderr := lockcheck(t, "run", "--scenario", sc, "--subject", "reentrant", "--seed", "2", "--out", out)
			if runCode != exitValid {
				t.Errorf("run: exit %d, want %d\n%s\n%s", runCode, exitValid, stdout, stderr)
			}
			dirs := runDirsUnder(t, out)
			if len(dirs) != 1 {
				t.Fatalf("run directories: %v", dirs)
			}
			before := hashDir(t, dirs[0])
			code, stdout, stderr := lockcheck(t, "check", dirs[0])
			if code != runCode || !strings.Contains(stdout, "reentrant on "+sc+": ") {
				t.Errorf("check: exit %d, want %d as the run, and a word on the expectation\n%s\n%s", code, runCode, stdout, stderr)
			}
			sameHashes(t, before, hashDir(t, dirs[0]))
			md, _ := os.ReadFile(filepath.Join(dirs[0], results.SummaryFile))
			if head := "# lockcheck: reentrant on " + sc + ": as expected ("; runCode == exitValid && !strings.HasPrefix(string(md), head) {
				t.Errorf("summary.md's headline: %s, want %s…", strings.SplitN(string(md), "\n", 2)[0], head)
			}
		})
	}
}

// The committed findings re-check, in place, to the verdicts their
// result.json records, and are left byte-identical.
func TestCommittedFindingsRecheckToRecordedVerdict(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir("../../results/findings", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == results.HistoryFile {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no committed findings with a history: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			run, err := results.LoadRun(dir)
			if err != nil || run.Result == nil {
				t.Fatalf("%s: %v (result.json: %v)", dir, err, run != nil && run.Result != nil)
			}
			before := hashDir(t, dir)
			code, stdout, stderr := lockcheck(t, "check", "--json", dir)
			var sums []results.Summary
			if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 1 {
				t.Fatalf("exit %d, JSON %v:\n%s\n%s", code, err, stdout, stderr)
			}
			if got, want := sums[0].Verdict(), run.Result.Verdict(); got != want {
				t.Errorf("verdict %s, recorded %s (exit %d)\n%s", got, want, code, stderr)
			}
			sameHashes(t, before, hashDir(t, dir))
		})
	}
}
