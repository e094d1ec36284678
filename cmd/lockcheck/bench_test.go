package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/workloads/bench"
)

// Only an explicit --record (of a full run) writes the committed track
// record; quick runs and plain runs get a run directory.
func TestBenchDir(t *testing.T) {
	now := time.Date(2026, 11, 22, 4, 17, 39, 0, time.UTC)
	for _, tc := range []struct {
		out           string
		record, quick bool
		want, err     string
	}{
		{quick: true, want: "results/runs/bench/20261122T041739"},
		{want: "results/runs/bench/20261122T041739"},
		{record: true, want: recordDir},
		{out: "/tmp/b", quick: true, want: "/tmp/b"},
		{record: true, quick: true, err: "--record takes a full run"},
		{out: "results/bench", quick: true, err: "committed track record"},
		{out: "./results/bench/", err: "committed track record"},
		{out: "results/bench", record: true, want: "results/bench"},
	} {
		got, err := benchDir(tc.out, tc.record, tc.quick, now)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%+v: err %v, want %q", tc, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%+v: %q, %v; want %q", tc, got, err, tc.want)
		}
	}
	if code, _, stderr := lockcheck(t, "bench", "--quick", "--record"); code != exitUsage || !strings.Contains(stderr, "--record") {
		t.Errorf("bench --quick --record: exit %d\n%s", code, stderr)
	}
}

// --workers fills both kinds of cells (contended ones from 2 workers);
// --subjects takes any registered subject that runs on one Redis and says
// why it refuses the others; --record refuses a custom matrix.
func TestBenchFlags(t *testing.T) {
	u, c, err := benchWorkers("1, 8,32")
	if err != nil || len(u) != 3 || len(c) != 2 || c[0] != 8 {
		t.Errorf("benchWorkers(1,8,32) = %v, %v, %v", u, c, err)
	}
	if _, c, _ := benchWorkers("1"); c == nil || len(c) != 0 {
		t.Errorf("benchWorkers(1): contended %#v, want empty non-nil (skip)", c)
	}
	for _, bad := range []string{"0", "x", ""} {
		if _, _, err := benchWorkers(bad); err == nil {
			t.Errorf("benchWorkers(%q): no error", bad)
		}
	}
	subjs, err := benchSubjects("redislock-tuned,reentrant,go-reentrant")
	if err != nil || len(subjs) != 3 || subjs[0].Name != "redislock-tuned" || subjs[2].Open == nil {
		t.Fatalf("benchSubjects: %v, %v", subjs, err)
	}
	for list, want := range map[string]string{
		"nope":             "unknown subject",
		"reentrant-wait":   "replicas",
		"reentrant+simple": "mixed fleet",
		"redlock":          "redlock-nodes",
	} {
		if _, err := benchSubjects(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("benchSubjects(%q): %v; want %q", list, err, want)
		}
	}
	set := func(f string) bool { return f == "workers" }
	if err := benchCustom(set); err == nil || !strings.Contains(err.Error(), "--workers") {
		t.Errorf("benchCustom(workers): %v", err)
	}
}

// TestBenchWire runs `lockcheck bench --wire` end to end at quick scale on
// its own redis-server: every cell has the subject's direct row and its
// wired twin's, side by side, and the wire trace overhead table divides
// them; --record refuses --wire (a custom matrix).
func TestBenchWire(t *testing.T) {
	if code, _, stderr := lockcheck(t, "bench", "--record", "--wire"); code != exitUsage || !strings.Contains(stderr, "--wire") {
		t.Errorf("bench --record --wire: exit %d\n%s", code, stderr)
	}
	if testing.Short() {
		t.Skip("integration test: starts redis-server (skipped with -short)")
	}
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "bench", "--quick", "--wire", "--subjects", "reentrant", "--workers", "1,2", "--duration", "200ms", "--rounds", "1", "--out", out)
	if code != exitValid {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"reentrant (wire)", "Wire trace overhead", "each subject also through traced Wires"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("tables lack %q\n%s", want, stdout)
		}
	}
	rep, err := bench.ReadReport(filepath.Join(out, "latest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		contended bool
		n         int
	}{{false, 1}, {false, 2}, {true, 2}} {
		for _, s := range []string{"reentrant", "reentrant" + bench.WireSuffix} {
			if row, ok := rep.Row(c.contended, s, c.n); !ok || row.Cycles == 0 {
				t.Errorf("%s, contended %v, %d workers: row %v, %d cycles", s, c.contended, c.n, ok, row.Cycles)
			}
		}
	}
	if wr := rep.WireRatios(); len(wr) != 3 || wr[0].Subject != "reentrant" || wr[0].Ratio <= 0 {
		t.Errorf("wire ratios = %+v, want reentrant's in 3 cells", wr)
	}
	md, err := os.ReadFile(filepath.Join(out, "latest.md"))
	if err != nil || !strings.Contains(string(md), "## Wire trace overhead") {
		t.Errorf("latest.md: %v\n%s", err, md)
	}
}
