package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/results"
)

// asCLI makes the test binary act as the lockcheck command when re-executed
// with LOCKCHECK_TEST_AS_CLI=1 (shards as separate processes).
func init() {
	if os.Getenv("LOCKCHECK_TEST_AS_CLI") != "1" {
		return
	}
	if os.Getenv(testValidateOnlyEnv) == "1" {
		if err := assemble(); err != nil { // as main does
			panic(err)
		}
		e := newEnv()
		e.validateOnly = true
		os.Exit(run(context.Background(), e, os.Args[1:]))
	}
	main() // the real entry point: signals as in the binary
}

// testValidateOnlyEnv, set to 1 beside LOCKCHECK_TEST_AS_CLI, makes the
// test binary run as lockcheck with env.validateOnly (validate.go): the
// documentation test validates a --driver command in its own process.
const testValidateOnlyEnv = "LOCKCHECK_TEST_VALIDATE_ONLY"

// tinyNightly is a matrix small enough for a test: 2 short safe scenarios ×
// 1 subject × 2 seeds.
var tinyNightly = []string{"nightly", "--scenarios", "no-faults,latency-short", "--subjects", "reentrant", "--seeds", "2", "--duration", "2s"}

// startCLI starts the test binary as `lockcheck args…`.
func startCLI(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := cliCommand(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// cliCommand is the test binary as `lockcheck args…`, not started.
func cliCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LOCKCHECK_TEST_AS_CLI=1")
	return cmd
}

// cellsUnder loads every matrix.json under dir, keyed by cell.
func cellsUnder(t *testing.T, dir string) map[string]results.MatrixCell {
	t.Helper()
	paths, err := results.FindMatrices([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]results.MatrixCell{}
	for _, p := range paths {
		m, err := results.LoadMatrix(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Cells {
			if _, dup := out[c.Key()]; dup {
				t.Fatalf("cell %s twice under %s", c.Key(), dir)
			}
			out[c.Key()] = c
		}
	}
	return out
}

// TestShardsCoverMatrix runs the tiny matrix whole and as N=2 shards, all
// three as parallel processes: the shards together hold exactly the whole
// run's cells, each once, with the same verdicts, and `lockcheck report`
// merges them into the same matrix as the whole run's.
func TestShardsCoverMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	const n = 2
	base := t.TempDir()
	whole := filepath.Join(base, "whole")
	procs := []*exec.Cmd{startCLI(t, append(tinyNightly, "--out", whole)...)}
	for i := 1; i <= n; i++ {
		procs = append(procs, startCLI(t, append(tinyNightly, "--shard", fmt.Sprintf("%d/%d", i, n), "--out", filepath.Join(base, fmt.Sprint("shard-", i)))...))
	}
	for i, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("process %d (%v): %v", i, p.Args[1:], err)
		}
	}
	want := cellsUnder(t, whole)
	if len(want) != 4 {
		t.Fatalf("the whole run has %d cells, want 4", len(want))
	}
	got := map[string]results.MatrixCell{}
	for i := 1; i <= n; i++ {
		for k, c := range cellsUnder(t, filepath.Join(base, fmt.Sprint("shard-", i))) {
			if _, dup := got[k]; dup {
				t.Errorf("cell %s in two shards", k)
			}
			got[k] = c
		}
	}
	if fmt.Sprint(sortedKeys(got)) != fmt.Sprint(sortedKeys(want)) {
		t.Fatalf("shards hold %v, the whole run %v", sortedKeys(got), sortedKeys(want))
	}
	for k, w := range want {
		if g := got[k]; g.Verdict != w.Verdict || g.OK != w.OK || g.Error != w.Error {
			t.Errorf("%s: shard verdict %s ok=%v, whole %s ok=%v", k, g.Verdict, g.OK, w.Verdict, w.OK)
		}
	}
	fromShards := reportRows(t, filepath.Join(base, "rs"), filepath.Join(base, "shard-1"), filepath.Join(base, "shard-2"))
	fromWhole := reportRows(t, filepath.Join(base, "rw"), whole)
	if fromShards != fromWhole {
		t.Errorf("merged shards:\n%s\nwhole run:\n%s", fromShards, fromWhole)
	}
}

// reportRows runs lockcheck report into out and renders its rows without
// the parts that differ between runs (wall times, directories).
func reportRows(t *testing.T, out string, dirs ...string) string {
	t.Helper()
	code, stdout, stderr := lockcheck(t, append([]string{"report", "--out", out}, dirs...)...)
	if code != exitValid {
		t.Fatalf("report %v: exit %d\n%s%s", dirs, code, stdout, stderr)
	}
	rep, err := results.LoadReport(filepath.Join(out, results.ReportJSON))
	if err != nil {
		t.Fatal(err)
	}
	s := ""
	for _, r := range rep.Rows {
		s += fmt.Sprintf("%s %s safe=%v %s runs=%d detected=%d unexpected=%d:", r.Scenario, r.Subject, r.Safe, r.Expected, r.Runs, r.Detected, r.Unexpected)
		for _, c := range r.Cells {
			if _, err := os.Stat(filepath.Join(out, c.Dir, "summary.md")); err != nil {
				t.Errorf("%s: the report's link does not reach summary.md: %v", c.Key(), err)
			}
			s += fmt.Sprintf(" %d=%s/%v", c.Seed, c.Verdict, c.OK)
		}
		s += "\n"
	}
	return s
}

func sortedKeys(m map[string]results.MatrixCell) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestShardFlagExits2: bad --shard values are usage errors naming the problem.
func TestShardFlagExits2(t *testing.T) {
	for arg, want := range map[string]string{"0/2": "between 1 and N", "3/2": "between 1 and N", "x": "want I/N", "1/0": "at least 1", "a/b": "integers"} {
		code, _, stderr := lockcheck(t, "nightly", "--shard", arg)
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("--shard %s: exit %d, stderr %q; want 2 and %q", arg, code, stderr, want)
		}
	}
}
