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
