package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// writeMatrix writes a matrix.json under dir/runs and returns its path.
func writeMatrix(t *testing.T, dir, shard string, cells ...MatrixCell) string {
	t.Helper()
	d := filepath.Join(dir, "runs")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(d, MatrixFileName)
	if err := WriteFileWith(p, func(w io.Writer) error {
		return WriteMatrixJSON(w, MatrixFile{Shard: shard, Started: time.Unix(0, 0), Wall: time.Minute, Cells: cells})
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

func safeCell(seed int64, v model.Verdict) MatrixCell {
	return MatrixCell{Scenario: "no-faults", Subject: "fair", Seed: seed, Safe: true, Expected: "valid", Verdict: v, OK: v == model.Valid, Dir: "no-faults/fair-" + string(rune('0'+seed)), Wall: time.Second}
}

func unsafeCell(seed int64, v model.Verdict, at time.Duration) MatrixCell {
	return MatrixCell{Scenario: "client-stall", Subject: "fair", Seed: seed, Expected: "detected", Verdict: v, OK: v == model.Invalid, FirstDetection: at, Wall: 2 * time.Second}
}

// TestMergeShards: two shards merge into rows by scenario × subject with
// detection rates, false positives, the least time to first detection and
// run directories relative to the report.
func TestMergeShards(t *testing.T) {
	base := t.TempDir()
	writeMatrix(t, filepath.Join(base, "a"), "1/2", safeCell(1, model.Valid), unsafeCell(2, model.Invalid, 3*time.Second))
	writeMatrix(t, filepath.Join(base, "b"), "2/2", safeCell(2, model.Invalid), unsafeCell(1, model.Invalid, 2*time.Second), unsafeCell(3, model.Valid, 0))
	paths, err := FindMatrices([]string{base})
	if err != nil || len(paths) != 2 {
		t.Fatalf("FindMatrices: %v %v", paths, err)
	}
	out := filepath.Join(base, "report")
	rep, err := MergeMatrices(paths, out, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || len(rep.MissingShards) != 0 || rep.Unexpected() != 2 {
		t.Fatalf("rows %d, missing %v, unexpected %d", len(rep.Rows), rep.MissingShards, rep.Unexpected())
	}
	cs, nf := rep.Rows[0], rep.Rows[1]
	if cs.Scenario != "client-stall" || cs.Runs != 3 || cs.Detected != 2 || cs.FirstDetection != 2*time.Second || cs.Cells[0].Seed != 1 {
		t.Errorf("client-stall row: %+v", cs)
	}
	if nf.FalsePositives() != 1 || nf.OK() || nf.Cells[0].Dir != "../a/runs/no-faults/fair-1" {
		t.Errorf("no-faults row: fp %d ok %v dir %q", nf.FalsePositives(), nf.OK(), nf.Cells[0].Dir)
	}
	if _, err := WriteReport(out, rep); err != nil {
		t.Fatal(err)
	}
	back, err := LoadReport(filepath.Join(out, ReportJSON))
	if err != nil || len(back.Rows) != 2 {
		t.Fatalf("LoadReport: %v", err)
	}
	// A scoreboard page keeps it gzipped; a baseline reads it the same.
	page := t.TempDir()
	if _, err := writeFiles(page, rep, reportFiles(true)); err != nil {
		t.Fatal(err)
	}
	if base, err := LoadBaseline(page); err != nil || len(base.Rows) != 2 {
		t.Fatalf("LoadBaseline of report.json.gz: %d rows, %v", len(base.Rows), err)
	}
}

// TestMergeRejectsOverlapAndNamesMissingShards: a cell in two inputs is an
// error naming both; a shard of a sharded run that no input holds is listed.
func TestMergeRejectsOverlapAndNamesMissingShards(t *testing.T) {
	base := t.TempDir()
	a := writeMatrix(t, filepath.Join(base, "a"), "1/3", safeCell(1, model.Valid))
	b := writeMatrix(t, filepath.Join(base, "b"), "2/3", safeCell(1, model.Valid))
	if _, err := MergeMatrices([]string{a, b}, base, time.Now()); err == nil || !strings.Contains(err.Error(), "no-faults/fair/1") {
		t.Errorf("overlap: %v", err)
	}
	rep, err := MergeMatrices([]string{a}, base, time.Now())
	if err != nil || strings.Join(rep.MissingShards, ",") != "2/3,3/3" {
		t.Errorf("missing shards %v, %v", rep.MissingShards, err)
	}
	if _, err := FindMatrices([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no matrix.json") {
		t.Errorf("empty dir: %v", err)
	}
}

// TestBaselineMarksRegressions: a row that met its expectation and no longer
// does, or detects less, is marked; an unchanged row is not.
func TestBaselineMarksRegressions(t *testing.T) {
	base := t.TempDir()
	old := writeMatrix(t, filepath.Join(base, "old"), "", safeCell(1, model.Valid), unsafeCell(1, model.Invalid, time.Second), unsafeCell(2, model.Invalid, time.Second))
	cur := writeMatrix(t, filepath.Join(base, "new"), "", safeCell(1, model.Valid), unsafeCell(1, model.Invalid, time.Second), unsafeCell(2, model.Valid, 0))
	before, err := LoadBaseline(filepath.Dir(filepath.Dir(old)))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := MergeMatrices([]string{cur}, base, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	CompareBaseline(&rep, before, "old")
	if rep.Regressions() != 1 || rep.Rows[0].Regression == "" || rep.Rows[1].Regression != "" {
		t.Errorf("regressions: %q / %q", rep.Rows[0].Regression, rep.Rows[1].Regression)
	}
}

// TestReportHTMLSelfContained: the page loads nothing (no scripts, no URLs
// but the links to run summaries) and links every cell with a directory.
func TestReportHTMLSelfContained(t *testing.T) {
	rep := Report{Rows: []ReportRow{{Scenario: "no-faults", Subject: "fair<x>", Safe: true, Expected: "valid", Runs: 1,
		Cells: []MatrixCell{safeCell(1, model.Valid)}}}}
	var b bytes.Buffer
	if err := WriteReportHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "fair<x>"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html contains %q", bad)
		}
	}
	if !strings.Contains(page, `href="no-faults/fair-1/summary.md"`) || !strings.Contains(page, "<svg") {
		t.Errorf("report.html lacks the cell's link or its SVG")
	}
}

// TestMergeLatestReplaces: a part run again replaces the older part's
// cells (the newer by Started wins, in whatever order the files come),
// and the row counts only the cells kept.
func TestMergeLatestReplaces(t *testing.T) {
	base := t.TempDir()
	write := func(name string, started time.Time, cells ...MatrixCell) string {
		d := filepath.Join(base, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(d, MatrixFileName)
		if err := WriteFileWith(p, func(w io.Writer) error {
			return WriteMatrixJSON(w, MatrixFile{Started: started, Cells: cells})
		}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	newer := write("again", time.Unix(200, 0), safeCell(1, model.Valid))
	older := write("first", time.Unix(100, 0), safeCell(1, model.Invalid), safeCell(2, model.Valid))
	rep, replaced, err := MergeLatest([]string{newer, older}, base, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 || rep.Rows[0].Runs != 2 || rep.Rows[0].Detected != 0 || len(replaced) != 1 {
		t.Fatalf("rows %+v, replaced %v", rep.Rows, replaced)
	}
	if _, err := MergeMatrices([]string{newer, older}, base, time.Now()); err == nil {
		t.Error("MergeMatrices took a cell twice")
	}
}

// TestHeadlinesStateTheCommit: a report's and a scoreboard's headline
// state the date and the commit that made them (a page's date and commit).
func TestHeadlinesStateTheCommit(t *testing.T) {
	r := Report{Generated: time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC), Commit: "0123456789abcdef0123"}
	for name, h := range map[string]string{"report": headline(r), "scoreboard": scoreboardHeadline(ScoreboardPage{Report: r})} {
		if !strings.Contains(h, "2026-11-29") || !strings.Contains(h, "at commit 0123456789ab ") && !strings.Contains(h, "at commit 0123456789ab.") {
			t.Errorf("%s headline %q states no date and commit", name, h)
		}
	}
	if h := headline(Report{Generated: r.Generated}); strings.Contains(h, "commit") {
		t.Errorf("a report without a commit names one: %q", h)
	}
}
