package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// verdicts makes a cell's checker verdicts: every checker named valid
// unless listed in bad.
func verdicts(ran []string, bad ...string) []CheckerVerdict {
	var out []CheckerVerdict
	for _, c := range ran {
		cv := CheckerVerdict{Checker: c, Verdict: model.Valid}
		for _, b := range bad {
			if b == c {
				cv.Verdict, cv.Class, cv.Example = model.Invalid, model.ClassSafety, "s: p1 granted while p2 held it\n  fault pause"
			}
		}
		out = append(out, cv)
	}
	return out
}

var baseCheckers = []string{model.CheckLinearizable, model.CheckMutualExclusion, model.CheckLiveness, model.CheckContract}

// sbCell is a scoreboard cell of subject on scenario (fault class f).
func sbCell(subject, scenario, f string, safe bool, seed int64, bad ...string) MatrixCell {
	c := MatrixCell{Scenario: scenario, Subject: subject, Seed: seed, Safe: safe, FaultClass: f, Expected: "valid", OK: len(bad) == 0,
		Checkers: verdicts(baseCheckers, bad...), Verdict: model.Valid, Dir: scenario + "/" + subject + "-" + strconv.FormatInt(seed, 10),
		Command: "lockcheck run --scenario " + scenario + " --subject " + subject}
	if len(bad) > 0 {
		c.Verdict, c.Invalid = model.Invalid, bad
	}
	return c
}

// rerun is a rerun that broke the listed checkers.
func rerun(dir string, bad ...string) Rerun {
	r := Rerun{Verdict: model.Valid, Checkers: verdicts(baseCheckers, bad...), Dir: dir}
	if len(bad) > 0 {
		r.Verdict, r.Invalid = model.Invalid, bad
	}
	return r
}

// TestPivotStates scores synthetic cells into every state a scoreboard
// cell can take.
func TestPivotStates(t *testing.T) {
	lin, mutex := model.CheckLinearizable, model.CheckMutualExclusion
	stall := sbCell("lib", "client-stall", "process pause/crash", false, 1, lin, mutex)
	stall.Tolerated, stall.Expected, stall.OK = []string{lin, mutex, model.CheckContract}, "detected by lin", true
	for i := range stall.Checkers {
		stall.Checkers[i].AllowedBy = "pause w1 [1s, 2s]"
	}
	pause := sbCell("lib", "redis-pause-short", "process pause/crash", true, 1, lin)
	pause.Reruns = []Rerun{rerun("redis-pause-short/lib-1-rerun-1", lin)}
	flaky := sbCell("lib", "latency-short", "partition/latency", true, 1, mutex)
	flaky.Reruns = []Rerun{rerun("latency-short/lib-1-rerun-1")}
	once := sbCell("lib", "clock-strobe", "clock", true, 1, model.CheckLiveness)
	skipped := MatrixCell{Scenario: "sentinel-failover-idle", Subject: "lib", Seed: 1, Safe: true, FaultClass: "failover/Sentinel", Skip: "dials one address", OK: true}
	bug := sbCell("lib", "restart-no-persistence", "restart/persistence", false, 1, lin)
	bug.Tolerated, bug.OK = []string{lin, mutex}, true
	bug.Checkers[0].Unexplained = true
	bug.Reruns = []Rerun{{Verdict: model.Invalid, Invalid: []string{lin}, Checkers: bug.Checkers}}
	rep := Report{Rows: []ReportRow{{Cells: []MatrixCell{sbCell("lib", "no-faults", "none", true, 1), stall, pause, flaky, once, skipped, bug}}}}
	known := []KnownFinding{{Subject: "lib", Checker: lin, Script: "repro.sh", Claim: "breaks alone"}}
	sb := Pivot(rep, []SubjectInfo{{Name: "lib", Version: "1.2.3", Claims: []string{ClaimWatchdog}}}, known)
	if len(sb.Rows) != 1 {
		t.Fatalf("rows: %+v", sb.Rows)
	}
	g := sb.Rows[0].Grid
	for _, tc := range []struct {
		prop, fault string
		want        State
		text        string
	}{
		{"mutual exclusion", "none", Holds, "holds"},
		{"FIFO", "none", NotClaimed, "not claimed"},
		{"fencing", "process pause/crash", NotClaimed, "not claimed"},
		{"linearizable", "process pause/crash", Broken, "broken by redis-pause-short"},
		{"mutual exclusion", "process pause/crash", Expected, "holds; expected break under client-stall"},
		{"mutual exclusion", "partition/latency", Flaky, "flaky: 1 of 2 (latency-short)"},
		{"liveness", "clock", Unproven, "broke once, not rerun (clock-strobe)"},
		{"linearizable", "failover/Sentinel", NotRun, "not run: dials one address"},
		{"linearizable", "restart/persistence", Expected, "holds; expected break under restart-no-persistence"},
		{"mutual exclusion", "restart/persistence", Holds, "holds"},
	} {
		s := g[tc.prop][tc.fault]
		if s.State != tc.want || s.Text() != tc.text {
			t.Errorf("%s × %s: %s %q, want %s %q", tc.prop, tc.fault, s.State, s.Text(), tc.want, tc.text)
		}
	}
	if p := sb.Rows[0].Property["linearizable"]; p.State != Broken || len(p.Scenarios) != 1 {
		t.Errorf("linearizable overall: %+v", p)
	}
	if f := sb.Rows[0].Fault["process pause/crash"]; f.State != Broken {
		t.Errorf("process pause/crash overall: %+v", f)
	}
	if len(sb.Findings) != 3 {
		t.Fatalf("findings: %+v", sb.Findings)
	}
	// A holds* cell keeps what allowed its break, with the run.
	if a := g["mutual exclusion"]["process pause/crash"].Allowances; len(a) != 1 || a[0].Scenario != "client-stall" ||
		a[0].AllowedBy != "pause w1 [1s, 2s]" || a[0].Command != "lockcheck run --scenario client-stall --subject lib" {
		t.Errorf("the expected break's allowances: %+v", a)
	}
	// Without the library-alone script the same cell is only reproduced.
	bare := Pivot(rep, []SubjectInfo{{Name: "lib", Version: "1.2.3", Claims: []string{ClaimWatchdog}}}, nil)
	s := bare.Rows[0].Grid["linearizable"]["process pause/crash"]
	if want := "reproduced under redis-pause-short (adapter not ruled out)"; s.State != Reproduced || s.Text() != want {
		t.Errorf("without a script: %s %q, want %s %q", s.State, s.Text(), Reproduced, want)
	}
	if p := bare.Rows[0].Property["linearizable"]; p.State != Reproduced {
		t.Errorf("without a script, linearizable overall: %+v", p)
	}
}

// TestPivotNothingGranted: a run in which nothing was granted (its
// well-formed result unknown) holds no property, but a violation in it
// still counts.
func TestPivotNothingGranted(t *testing.T) {
	idle := sbCell("lib", "no-faults", "none", true, 1, model.CheckLiveness)
	idle.Checkers = append(idle.Checkers, CheckerVerdict{Checker: model.CheckWellFormed, Verdict: model.Unknown})
	rep := Report{Rows: []ReportRow{{Cells: []MatrixCell{idle}}}}
	g := Pivot(rep, []SubjectInfo{{Name: "lib", Version: "1"}}, nil).Rows[0].Grid
	if s := g["mutual exclusion"]["none"]; s.State != Unknown {
		t.Errorf("mutual exclusion after no grant: %s %q, want %s", s.State, s.Text(), Unknown)
	}
	if s := g["liveness"]["none"]; s.State != Unproven {
		t.Errorf("liveness violated without a grant: %s %q, want %s", s.State, s.Text(), Unproven)
	}
}

// writeSBMatrix writes a scoreboard part's matrix.json into dir, with one
// run directory per cell (and rerun) holding a result.json.
func writeSBMatrix(t *testing.T, dir string, subjects []SubjectInfo, cells ...MatrixCell) {
	t.Helper()
	for _, c := range cells {
		dirs := []string{c.Dir}
		for _, r := range c.Reruns {
			dirs = append(dirs, r.Dir)
		}
		for _, d := range dirs {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{ResultFile, "latency.png"} {
				if err := os.WriteFile(filepath.Join(dir, d, f), []byte("{}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if err := WriteFileWith(filepath.Join(dir, MatrixFileName), func(w io.Writer) error {
		return WriteMatrixJSON(w, MatrixFile{Kind: "scoreboard", SeedBase: 100, Subjects: subjects, Cells: cells})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestScoreboardFromParts renders a scoreboard from two parts run
// separately (a subject subset each): one row per library with its
// version, the findings with their commands, reruns and histories (linked
// where they are: keeping them is workloads/matrix's Publish), and the
// library-alone script where one is known.
func TestScoreboardFromParts(t *testing.T) {
	base := t.TempDir()
	fair := sbCell("redisson-fair", "redis-pause-short", "process pause/crash", true, 101, model.CheckFairness)
	fair.Checkers = append(fair.Checkers, CheckerVerdict{Checker: model.CheckFairness, Verdict: model.Invalid, Class: model.ClassFairness, Example: "s: p3 granted before p1"})
	fair.Reruns = []Rerun{{Verdict: model.Invalid, Checkers: fair.Checkers, Dir: "redis-pause-short/redisson-fair-101-rerun-1"}}
	fair.Signatures = mustSignatures(t, "fairness/overtaken/acquire/during:redis-pause")
	writeSBMatrix(t, filepath.Join(base, "java"), []SubjectInfo{{Name: "redisson-fair", Library: "redisson-fair", Version: "3.52.0", Claims: []string{ClaimFair}}},
		sbCell("redisson-fair", "no-faults", "none", true, 101), fair)
	odd := sbCell("redsync", "latency-short", "partition/latency", true, 101, model.CheckLinearizable)
	odd.Reruns = []Rerun{rerun("latency-short/redsync-101-rerun-1", model.CheckLinearizable)}
	odd.Beyond = true
	stall := sbCell("redsync", "client-stall", "process pause/crash", false, 101, model.CheckLinearizable)
	stall.Tolerated, stall.OK = []string{model.CheckLinearizable}, true
	stall.Checkers[0].AllowedBy = "client-stall w2 [1.0s, 4.5s]"
	writeSBMatrix(t, filepath.Join(base, "go"), []SubjectInfo{{Name: "redsync", Version: "v4.17.0"}},
		sbCell("redsync", "no-faults", "none", true, 101), odd, stall)
	page := filepath.Join(base, "page")
	paths, err := FindMatrices([]string{filepath.Join(base, "java"), filepath.Join(base, "go")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := LoadScoreboard(page, paths, nil, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	files, err := WriteScoreboardPage(page, p)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 7 {
		t.Errorf("files: %v", files)
	}
	md, _ := os.ReadFile(filepath.Join(page, ScoreboardMarkdown))
	for _, want := range []string{
		"| redisson-fair | 3.52.0 | fair |", "| redsync | v4.17.0 |",
		"**broken by redis-pause-short**", "impl/drivers/redisson-java/repro/run.sh",
		"Adapter not yet ruled out", "broke in 2 of 2 runs of `lockcheck run --scenario latency-short --subject redsync`",
		"[rerun 1](../go/latency-short/redsync-101-rerun-1)", "s: p3 granted before p1",
		"seeds 101 (--seed-base 100)", "expected break",
		"**beyond the fault**", "within the fault",
		"| redsync | linearizable | client-stall | 101 | client-stall w2 [1.0s, 4.5s] | `lockcheck run --scenario client-stall --subject redsync` |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("README.md lacks %q:\n%s", want, md)
		}
	}
	// The README's table: a word a cell, the page linked once.
	table, _ := os.ReadFile(filepath.Join(page, ScoreboardTable))
	for _, want := range []string{"| redisson-fair | 3.52.0 | fair |", "**broken**", "| redsync | v4.17.0 |", "[the page](README.md)"} {
		if !strings.Contains(string(table), want) {
			t.Errorf("table.md lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(string(table), "#finding-") || !strings.Contains(string(md), `<a id="lib-redisson-fair"></a>`) {
		t.Errorf("table.md links findings, or README.md has no section anchor for a library:\n%s", table)
	}
	var h bytes.Buffer
	html, err := readRunFile(page, ScoreboardHTML) // scoreboard.html.gz
	if err != nil {
		t.Fatal(err)
	}
	h.Write(html)
	if !strings.Contains(h.String(), `class="broken"`) || strings.Contains(h.String(), "<script") {
		t.Errorf("scoreboard.html: no broken cell, or a script")
	}
}

// TestPivotBeyondIsNotExpected: a break the scenario tolerates is holds*
// only when nothing in its run went beyond the faults; in a run that did,
// it is the run's fault-allowance finding, listed once.
func TestPivotBeyondIsNotExpected(t *testing.T) {
	lin, mutex, fa := model.CheckLinearizable, model.CheckMutualExclusion, model.CheckAllowance
	ran := append(slices.Clone(baseCheckers), fa)
	kill := sbCell("lib", "client-conn-kill", "partition/latency", true, 1, lin, mutex, fa)
	kill.Checkers, kill.Tolerated, kill.Beyond = verdicts(ran, lin, mutex, fa), []string{lin, mutex, model.CheckLiveness}, true
	kill.Reruns = []Rerun{{Verdict: model.Invalid, Invalid: []string{lin, mutex, fa}, Checkers: verdicts(ran, lin, mutex, fa), Dir: "client-conn-kill/lib-1-rerun-1"}}
	stall := sbCell("lib", "client-stall", "process pause/crash", true, 1, mutex)
	stall.Checkers, stall.Tolerated = verdicts(ran, mutex), []string{lin, mutex}
	stall.Checkers[len(ran)-1].Allowed = []string{"client-stall w0 [1s, 4s] (×2)"}
	rep := Report{Rows: []ReportRow{{Cells: []MatrixCell{kill, stall}}}}
	known := []KnownFinding{{Subject: "lib", Checker: fa, Script: "repro.sh", Claim: "breaks alone"}}
	sb := Pivot(rep, []SubjectInfo{{Name: "lib"}}, known)
	g := sb.Rows[0].Grid
	for _, prop := range []string{"mutual exclusion", "linearizable", "within the fault"} {
		if s := g[prop]["partition/latency"]; s.State != Broken || len(s.Findings) != 1 || s.Findings[0] != "lib/client-conn-kill/fault-allowance" {
			t.Errorf("%s under the kill: %s %v, want broken as the fault-allowance finding", prop, s.State, s.Findings)
		}
	}
	if len(sb.Findings) != 1 || len(sb.Findings[0].Runs) != 1 {
		t.Fatalf("findings: %+v", sb.Findings)
	}
	s := g["mutual exclusion"]["process pause/crash"]
	if s.State != Expected || len(s.Allowances) != 1 {
		t.Fatalf("the stall: %+v", s)
	}
	if got, want := s.Allowances[0].evidence(), "within the faults: client-stall w0 [1s, 4s] (×2)"; got != want {
		t.Errorf("the stall's evidence: %q, want %q", got, want)
	}
	// With nothing allowed, the evidence says whether the fault-allowance
	// checker ran at all.
	if e := (Allowance{Judged: true}).evidence(); !strings.Contains(e, "found no anomaly beyond its faults") {
		t.Errorf("judged, nothing allowed: %q", e)
	}
	if e := (Allowance{}).evidence(); !strings.Contains(e, "no fault-allowance checker") {
		t.Errorf("not judged: %q", e)
	}
}

// TestPivotKnownBySignature: a library-alone script stands for a break
// only when the run's violations have its bug's signature; the same
// checker broken another way is reproduced, the adapter not ruled out.
func TestPivotKnownBySignature(t *testing.T) {
	lin := model.CheckLinearizable
	cell := func(scenario, sig string) MatrixCell {
		c := sbCell("lib", scenario, "process pause/crash", true, 1, lin)
		c.Reruns = []Rerun{rerun(scenario+"/lib-1-rerun-1", lin)}
		c.Signatures = mustSignatures(t, sig)
		return c
	}
	theBug := cell("client-interrupt", "liveness/orphan-renewed/acquire/during:client-interrupt")
	other := cell("process-pause", "safety/double-grant/acquire/beyond:process-pause")
	known := []KnownFinding{{Subject: "lib", Checker: lin, Script: "interrupted.sh", Claim: "orphans alone", Signatures: mustSignatures(t, "liveness/orphan-renewed/*/*")}}
	sb := Pivot(Report{Rows: []ReportRow{{Cells: []MatrixCell{theBug, other}}}}, []SubjectInfo{{Name: "lib"}}, known)
	byScenario := map[string]Finding{}
	for _, f := range sb.Findings {
		byScenario[f.Scenario] = f
	}
	if f := byScenario["client-interrupt"]; f.State != Broken || f.Known == nil || f.Known.Script != "interrupted.sh" {
		t.Errorf("the bug's run: %s, known %+v; want broken, shown by interrupted.sh", f.State, f.Known)
	}
	if f := byScenario["process-pause"]; f.State != Reproduced || f.Known != nil {
		t.Errorf("another break of the same checker: %s, known %+v; want reproduced, no script", f.State, f.Known)
	}
}
