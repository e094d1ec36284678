package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --threads and --workers exclude each other, --record refuses --threads
// (a custom matrix), and --from needs --fair-page and a readable report.
func TestBenchThreadsFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--threads", "1,8", "--workers", "1,8"}, "--threads and --workers"},
		{[]string{"bench", "--record", "--threads", "1,8"}, "--threads"},
		{[]string{"bench", "--from", "x.json"}, "--from takes --fair-page"},
		{[]string{"bench", "--fair-page", t.TempDir(), "--from", filepath.Join(t.TempDir(), "missing.json")}, "--from"},
		{[]string{"bench", "--threads", "0"}, `--threads: "0" is not a count`},
	} {
		code, _, stderr := lockcheck(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want usage with %q\n%s", tc.args, code, tc.want, stderr)
		}
	}
}

// --fair-page --from makes the page from a run's latest.json without
// measuring; a report without a fair pair is refused.
func TestBenchFairPageFrom(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "latest.json")
	if err := os.WriteFile(from, []byte(`{"Threads": true, "Subjects": [{"Name": "reentrant"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lockcheck(t, "bench", "--fair-page", dir, "--from", from)
	if code != exitUsage || !strings.Contains(stderr, "no fair pair") {
		t.Errorf("exit %d, want usage: no fair pair\n%s", code, stderr)
	}
}

// TestBenchThreadsQuick runs `lockcheck bench --quick --threads` end to
// end on its own redis-server: the tables carry the threads' server
// columns, and --fair-page writes the page from the same run.
func TestBenchThreadsQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	out, page := t.TempDir(), t.TempDir()
	code, stdout, stderr := lockcheck(t, "bench", "--quick", "--threads", "1,2", "--subjects", "reentrant,fair", "--out", out, "--fair-page", page)
	if code != exitValid {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"uncontended 2 threads", "Server cost per cycle", "Share of the server limit"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("tables lack %q\n%s", want, stdout)
		}
	}
	md, err := os.ReadFile(filepath.Join(page, "fair-vs-nonfair.md"))
	if err != nil || !strings.Contains(string(md), "**Throughput.** On one lock, `fair` runs at 2 threads") {
		t.Errorf("fair page: %v\n%s", err, md)
	}
	if _, err := os.Stat(filepath.Join(out, "latest.json")); err != nil {
		t.Error(err)
	}
}
