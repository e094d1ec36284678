package matrix

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// runPart runs the fake matrix (shard sh, ctx) as a scoreboard part into
// base/<name>/runs/scoreboard/<stamp>, as `lockcheck scoreboard --out
// base/<name>` would, and returns that directory.
func runPart(t *testing.T, ctx context.Context, base, name string, sh scenario.Shard, start time.Time, x *fakeExec) string {
	t.Helper()
	dir := filepath.Join(base, name, "runs", "scoreboard", start.Format(results.TimestampLayout))
	cfg := fakeConfig(dir, x, nil, newFakeClock(start))
	cfg.Shard = sh
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	return dir
}

// cellsOf reads the cells of the matrix.json files under dirs by key.
func cellsOf(t *testing.T, dirs ...string) map[string]results.MatrixCell {
	t.Helper()
	out := map[string]results.MatrixCell{}
	for _, d := range dirs {
		m, err := results.LoadMatrix(filepath.Join(d, results.MatrixFileName))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Cells {
			if _, dup := out[c.Key()]; dup {
				t.Errorf("cell %s twice", c.Key())
			}
			out[c.Key()] = c
		}
	}
	return out
}

// TestShardsMergeAndPublish runs the 3 × 3 matrix whole and as two shards:
// the shards hold exactly the whole run's cells with the same verdicts and
// run keys; the page published from the shards keeps the finding's run
// and its reruns (and nothing else), links only those copies, and names
// no path of this machine.
func TestShardsMergeAndPublish(t *testing.T) {
	base := t.TempDir()
	whole := runPart(t, t.Context(), base, "whole", scenario.Shard{}, t0, &fakeExec{bad: detects})
	s1 := runPart(t, t.Context(), base, "s1", scenario.Shard{I: 1, N: 2}, t0, &fakeExec{bad: detects})
	s2 := runPart(t, t.Context(), base, "s2", scenario.Shard{I: 2, N: 2}, t0.Add(time.Minute), &fakeExec{bad: detects})
	want, got := cellsOf(t, whole), cellsOf(t, s1, s2)
	if len(want) != 9 || len(got) != 9 {
		t.Fatalf("whole run %d cells, shards %d", len(want), len(got))
	}
	for k, w := range want {
		g := got[k]
		if g.Verdict != w.Verdict || g.OK != w.OK || g.Dir != w.Dir || len(g.Reruns) != len(w.Reruns) {
			t.Errorf("%s: shard %s ok=%v dir %s, whole %s ok=%v dir %s", k, g.Verdict, g.OK, g.Dir, w.Verdict, w.OK, w.Dir)
		}
	}
	// Every run of the finding has a wire trace; only the first needs it
	// (its verdicts differ without it), so only its copy keeps it.
	dirs, _ := filepath.Glob(filepath.Join(base, "s*", "runs", "scoreboard", "*", "safe-b", "lock-y-1*"))
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, model.WireFile), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	needsWire := func(dir string) (bool, error) { return strings.HasSuffix(dir, "lock-y-1"), nil }
	page := filepath.Join(base, "repo", "results", "scoreboard")
	files, err := Publish(page, []string{filepath.Join(base, "s1"), filepath.Join(base, "s2")}, t0.Add(time.Hour), results.Rechecks{NeedsWire: needsWire})
	if err != nil {
		t.Fatal(err)
	}
	kept := keptRuns(t, page)
	wantKept := []string{"safe-b/lock-y-1", "safe-b/lock-y-1-rerun-1", "safe-b/lock-y-1-rerun-2"}
	if !slices.Equal(kept, wantKept) {
		t.Errorf("kept %v, want %v", kept, wantKept)
	}
	for _, k := range kept {
		_, err := os.Stat(filepath.Join(page, results.ScoreboardRuns, k, model.WireFile+results.Gz))
		if want := k == "safe-b/lock-y-1"; (err == nil) != want {
			t.Errorf("%s: wire trace kept %v, want %v", k, err == nil, want)
		}
	}
	checkStandsAlone(t, page, files)
	md, _ := os.ReadFile(filepath.Join(page, results.ReportMarkdown))
	if n := len(regexp.MustCompile(`\]\(runs/[^)]*summary\.md\)`).FindAll(md, -1)); n != 1 {
		t.Errorf("report.md links %d kept runs, want the finding's 1:\n%s", n, md)
	}
	readme, _ := os.ReadFile(filepath.Join(page, results.ScoreboardMarkdown))
	for _, w := range []string{"[rerun 2](runs/safe-b/lock-y-1-rerun-2)", "history [runs/safe-b/lock-y-1](runs/safe-b/lock-y-1)"} {
		if !strings.Contains(string(readme), w) {
			t.Errorf("README.md lacks %q", w)
		}
	}
}

// keptRuns lists the run directories kept under page/runs.
func keptRuns(t *testing.T, page string) []string {
	t.Helper()
	var kept []string
	dirs, _ := filepath.Glob(filepath.Join(page, results.ScoreboardRuns, "*", "*"))
	for _, d := range dirs {
		rel, _ := filepath.Rel(filepath.Join(page, results.ScoreboardRuns), d)
		kept = append(kept, filepath.ToSlash(rel))
		if _, err := os.Stat(filepath.Join(d, results.HTMLFile)); err == nil {
			t.Errorf("%s: the timeline was kept", rel)
		}
		for _, name := range []string{results.HistoryFile, results.ResultFile} {
			if _, err := os.Stat(filepath.Join(d, name+results.Gz)); err != nil {
				t.Errorf("%s: %s not kept gzipped: %v", rel, name, err)
			}
		}
		if _, err := results.LoadRun(d); err != nil {
			t.Errorf("%s: the kept copy does not load: %v", rel, err)
		}
	}
	slices.Sort(kept)
	return kept
}

// checkStandsAlone fails on any link of the page's files (kept summaries
// included) that does not resolve in the repository the page sits in
// (page is <repo>/results/scoreboard), and on any path of this machine
// (the test's temporary directory is one).
func checkStandsAlone(t *testing.T, page string, files []string) {
	t.Helper()
	repo := filepath.Dir(filepath.Dir(page))
	summaries, _ := filepath.Glob(filepath.Join(page, results.ScoreboardRuns, "*", "*", results.SummaryFile))
	more, _ := filepath.Glob(filepath.Join(page, results.ScoreboardRuns, "*", "*", "*", results.SummaryFile)) // runs/<server>/<scenario>/<run>
	summaries = append(summaries, more...)
	if len(summaries) == 0 {
		t.Error("no kept summary")
	}
	for _, f := range append(files, summaries...) {
		rel, _ := filepath.Rel(repo, f)
		rel = filepath.ToSlash(rel)
		if filepath.Base(rel) == results.ScoreboardTable || !(strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".html")) {
			continue
		}
		for _, err := range results.CheckLinks(repo, rel, path.Dir(rel)) {
			t.Error(err)
		}
	}
}

// TestPublishPartRunAgain: a part interrupted and then run again (a rerun
// of the part) is published with the later cells scored, the replaced
// cells named by run, not by path, and its interrupted run's kept runs
// not linked when they were replaced.
func TestPublishPartRunAgain(t *testing.T) {
	base := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	x := &fakeExec{bad: detects}
	x.after = func(n int) {
		if n == 4 {
			cancel()
		}
	}
	first := runPart(t, ctx, base, "p1", scenario.Shard{}, t0, x)
	cancel()
	again := runPart(t, t.Context(), base, "p2", scenario.Shard{}, t0.Add(time.Hour), &fakeExec{bad: detects})
	page := filepath.Join(base, "repo", "results", "scoreboard")
	files, err := Publish(page, []string{first, again}, t0.Add(2*time.Hour), results.Rechecks{})
	if err != nil {
		t.Fatal(err)
	}
	checkStandsAlone(t, page, files)
	readme, _ := os.ReadFile(filepath.Join(page, results.ScoreboardMarkdown))
	want := fmt.Sprintf("safe-a/lock-x/1: scoreboard run %s replaces scoreboard run %s", filepath.Base(again), filepath.Base(first))
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md lacks %q:\n%s", want, readme)
	}
	if kept := keptRuns(t, page); len(kept) != 3 {
		t.Errorf("kept %v, want the finding's run and 2 reruns", kept)
	}
}
