package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// The scoreboard's default subjects are the libraries people run: external
// drivers and Go peers, not lockcheck's own locks (in process or behind
// the protocol), tuned variants or mutants.
func TestScoredSubjects(t *testing.T) {
	subs, err := scoredSubjects("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range subs {
		names = append(names, s.Name)
	}
	for _, want := range []string{"redsync", "redislock", "node-redisson", "node-redlock", "redis-py", "python-redis-lock", "redisson", "redisson-fair", "redisson@3.43.0"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s is not scored: %v", want, names)
		}
	}
	for _, not := range []string{"go-reentrant", "redsync-tuned", "redislock-tuned", "reentrant", "fair", "mutant-check-then-set"} {
		if slices.Contains(names, not) {
			t.Errorf("%s is scored", not)
		}
	}
	if got := defaultSeedBase(time.Date(2026, 11, 25, 23, 59, 0, 0, time.UTC)); got != 2026112500 {
		t.Errorf("seed base %d", got)
	}
}

// A scoreboard part runs its cells, reruns the finding from its command,
// and the page rendered from it calls the broken property broken, links
// the kept history, and the command it gives reproduces the violation.
func TestScoreboardRunAndRender(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	out := t.TempDir()
	page := filepath.Join(out, "page")
	code, stdout, stderr := lockcheck(t, "scoreboard", "--subjects", "redsync,mutant-check-then-set", "--scenarios", "no-faults",
		"--seeds", "1", "--seed-base", "40", "--duration", "2s", "--out", out, "--page", page)
	if code != exitValid {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	mds, _ := filepath.Glob(filepath.Join(out, "runs", "scoreboard", "*", results.MatrixFileName))
	if len(mds) != 1 {
		t.Fatalf("matrix.json files: %v", mds)
	}
	m, err := results.LoadMatrix(mds[0])
	if err != nil {
		t.Fatal(err)
	}
	var finding results.MatrixCell
	for _, c := range m.Cells {
		if c.Subject == "mutant-check-then-set" {
			finding = c
		}
	}
	if m.SeedBase != 40 || finding.Seed != 41 || len(finding.Reruns) != 1 || len(finding.Findings()) == 0 {
		t.Fatalf("seed base %d; the mutant's cell: %+v", m.SeedBase, finding)
	}
	md, err := os.ReadFile(filepath.Join(page, results.ScoreboardMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "| redsync | v4.17.0 | watchdog | holds |") || !strings.Contains(string(md), "runs/no-faults/mutant-check-then-set-41") {
		t.Errorf("README.md:\n%s", md)
	}
	checkRecheck(t, out, mds[0], m, finding)
	args := strings.Fields(finding.Command)
	if args[0] != "lockcheck" || args[1] != "run" {
		t.Fatalf("command %q", finding.Command)
	}
	// A mutant on a safe scenario is informational (exit 0); its verdict
	// is the violation.
	code, stdout, stderr = lockcheck(t, append(args[1:], "--json", "--out", t.TempDir())...)
	if code != exitValid || !strings.Contains(stdout, `"verdict": "invalid"`) {
		t.Errorf("%s: exit %d, no invalid verdict\n%s\n%s", finding.Command, code, stdout, stderr)
	}
}

// checkRecheck: `scoreboard recheck` finds the part's verdicts again (exit
// 0), and names a recorded verdict that the checkers do not give (a part
// whose mutant cell was recorded valid): exit 1.
func checkRecheck(t *testing.T, out, path string, m results.MatrixFile, finding results.MatrixCell) {
	t.Helper()
	code, stdout, stderr := lockcheck(t, "scoreboard", "recheck", out)
	if code != exitValid || !strings.Contains(stdout, "re-checked 3 runs of 1 scoreboard parts") || !strings.Contains(stdout, ": 0 differ") {
		t.Fatalf("recheck: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for i, c := range m.Cells {
		if c.Subject != finding.Subject {
			continue
		}
		for k, cv := range c.Checkers {
			if cv.Checker == "linearizable" {
				m.Cells[i].Checkers[k].Verdict = model.Valid
			}
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = lockcheck(t, "scoreboard", "recheck", path)
	want := fmt.Sprintf("no-faults/mutant-check-then-set/%d", finding.Seed)
	if code != exitInvalid || !strings.Contains(stdout, ": 1 differ") || !strings.Contains(stdout, want) || !strings.Contains(stdout, "linearizable: valid → invalid") {
		t.Errorf("recheck of a tampered part: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
