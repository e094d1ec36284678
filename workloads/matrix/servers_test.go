package matrix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// runOnServer runs the fake matrix as `lockcheck scoreboard --servers` runs
// one server's share: into base/<stamp>/<server>, its cells' commands
// repeating --server, the matrix recording the server.
func runOnServer(t *testing.T, base, server string, x *fakeExec) {
	t.Helper()
	dir := filepath.Join(base, t0.Format(results.TimestampLayout), server)
	cfg := fakeConfig(dir, x, nil, newFakeClock(t0))
	cfg.Engine, cfg.Server = " --server "+server, server+" (fake-server 1.0), backend process"
	if _, err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
}

// onlyOn makes lock-x break mutual exclusion on safe-a in every run, on
// the server whose executor it is given to, besides what detects does.
func onlyOn(c scenario.Cell, try int) []string {
	bad := detects(c, try)
	if c.Scenario.Name == "safe-a" && c.Subject.Name == "lock-x" {
		bad = append(bad, model.CheckMutualExclusion)
	}
	return bad
}

// TestServersPublish: the same matrix on two servers, one of which breaks
// lock-x on safe-a, published as one page: a row per library × server,
// no cell of one server replacing the other's, the break listed as a
// difference (the breaking side's histories kept under runs/<server>/, the
// holding side's run named by its command, not kept),
// each finding's command repeating its --server, and the page standing
// alone.
func TestServersPublish(t *testing.T) {
	base := t.TempDir()
	runOnServer(t, base, "srv-a", &fakeExec{bad: detects})
	runOnServer(t, base, "srv-b", &fakeExec{bad: onlyOn})
	page := filepath.Join(base, "repo", "results", "scoreboard-servers")
	md := publishAlone(t, page, base)
	for _, w := range []string{
		"| library | server | version |",
		"| lock-x | srv-a |", "| lock-x | srv-b |", "| lock-y | srv-a |", "| lock-y | srv-b |",
		"### lock-x on srv-b", "3 libraries, 18 scenario × seed × server cells in all (skipped ones included), on 2 servers",
		"## Differs between servers",
		"- lock-x, safe-a, mutual exclusion: srv-a: holds; srv-b: **reproduced under safe-a (adapter not ruled out)** [1](#finding-lock-x-safe-a-mutual-exclusion-on-srv-b) (histories [1](runs/srv-b/safe-a/lock-x-1))",
		"lockcheck run --scenario safe-a --subject lock-x --seed 1 --server srv-b`",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("README.md lacks %q:\n%s", w, md)
		}
	}
	if strings.Contains(md, "replaces") {
		t.Errorf("a server's cell replaced the other's:\n%s", md)
	}
	// lock-y breaks on safe-b on both servers: the same verdict, no difference.
	if strings.Contains(md, "- lock-y, safe-b") {
		t.Errorf("lock-y on safe-b listed as differing, though both servers break it:\n%s", md)
	}
	var kept []string
	dirs, _ := filepath.Glob(filepath.Join(page, results.ScoreboardRuns, "*", "*", "*"))
	for _, d := range dirs {
		rel, _ := filepath.Rel(filepath.Join(page, results.ScoreboardRuns), d)
		kept = append(kept, filepath.ToSlash(rel))
	}
	slices.Sort(kept)
	want := []string{
		"srv-a/safe-b/lock-y-1", "srv-a/safe-b/lock-y-1-rerun-1", "srv-a/safe-b/lock-y-1-rerun-2",
		"srv-b/safe-a/lock-x-1", "srv-b/safe-a/lock-x-1-rerun-1", "srv-b/safe-a/lock-x-1-rerun-2",
		"srv-b/safe-b/lock-y-1", "srv-b/safe-b/lock-y-1-rerun-1", "srv-b/safe-b/lock-y-1-rerun-2",
	}
	if !slices.Equal(kept, want) {
		t.Errorf("kept %v\nwant %v", kept, want)
	}
	table, _ := os.ReadFile(filepath.Join(page, results.ScoreboardTable))
	if strings.Contains(string(table), "| server |") || !strings.Contains(string(table), "On srv-a; [the page](README.md) has a row per library on each of srv-a, srv-b") {
		t.Errorf("table.md is not one server's rows with a note:\n%s", table)
	}
}

// TestOneServerPublishHasNoServerColumn: a page of one server that records
// its server reads as a page from before the axis: no server column, no
// differences section, run paths without the server.
func TestOneServerPublishHasNoServerColumn(t *testing.T) {
	base := t.TempDir()
	runOnServer(t, base, "srv-a", &fakeExec{bad: onlyOn})
	readme := publishAlone(t, filepath.Join(base, "repo", "results", "scoreboard"), base)
	for _, bad := range []string{"| server |", "Differs between servers", " on srv-a", "runs/srv-a/"} {
		if strings.Contains(readme, bad) {
			t.Errorf("a one-server page has %q:\n%s", bad, readme)
		}
	}
	if !strings.Contains(readme, "Server: srv-a (fake-server 1.0), backend process.") {
		t.Errorf("the headline does not name the server:\n%s", readme)
	}
}

// publishAlone publishes the matrices under base into page, checks the page
// stands alone and returns its README.md.
func publishAlone(t *testing.T, page, base string) string {
	t.Helper()
	files, err := Publish(page, []string{base}, t0.Add(time.Hour), results.Rechecks{})
	if err != nil {
		t.Fatal(err)
	}
	checkStandsAlone(t, page, files)
	readme, _ := os.ReadFile(filepath.Join(page, results.ScoreboardMarkdown))
	return string(readme)
}

// TestPublishSkipsEmptyHistory: a rerun that could not start leaves its
// directory with an empty history (as a driver that failed its hello
// does): the page is published without it, the finding's own run kept.
func TestPublishSkipsEmptyHistory(t *testing.T) {
	base := t.TempDir()
	runOnServer(t, base, "srv-a", &fakeExec{bad: detects})
	reruns, _ := filepath.Glob(filepath.Join(base, "*", "srv-a", "safe-b", "lock-y-1-rerun-1"))
	if len(reruns) != 1 {
		t.Fatalf("reruns %v", reruns)
	}
	if err := os.WriteFile(filepath.Join(reruns[0], results.HistoryFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	readme := publishAlone(t, filepath.Join(base, "repo", "results", "scoreboard"), base)
	if strings.Contains(readme, "lock-y-1-rerun-1") || !strings.Contains(readme, "[rerun 1](runs/safe-b/lock-y-1-rerun-2)") {
		t.Errorf("the empty rerun is linked, or the other is not:\n%s", readme)
	}
}
