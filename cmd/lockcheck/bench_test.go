package main

import (
	"strings"
	"testing"
	"time"
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
