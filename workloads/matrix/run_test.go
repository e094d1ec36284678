package matrix

import (
	"context"
	"errors"
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

var t0 = time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)

// TestRunFakeMatrix runs the 3 × 3 matrix with a fake executor, no Redis:
// every cell runs once under its key in scenario, subject order; the one
// that breaks a property its lock claims is rerun twice right after it;
// matrix.json names every run by its key, and the run's verdict is
// unexpected only for that cell.
func TestRunFakeMatrix(t *testing.T) {
	dir := t.TempDir()
	x := &fakeExec{bad: detects}
	obs := &recorder{}
	res, err := Run(t.Context(), fakeConfig(dir, x, obs, newFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	var want []Key
	for _, sc := range []string{"safe-a", "safe-b", "unsafe-c"} {
		for _, s := range []string{"lock-x", "lock-y", "lock-z"} {
			want = append(want, Key(sc+"/"+s+"-1"))
			if sc == "safe-b" && s == "lock-y" {
				want = append(want, "safe-b/lock-y-1-rerun-1", "safe-b/lock-y-1-rerun-2")
			}
		}
	}
	if !slices.Equal(x.keys, want) {
		t.Fatalf("ran %v\nwant %v", x.keys, want)
	}
	if len(obs.started) != 1 || obs.started[0].Dir != dir || obs.started[0].Scenarios != 3 || obs.started[0].Subjects != 3 || obs.started[0].Cells != 9 {
		t.Errorf("started: %+v", obs.started)
	}
	if n := len(obs.events); n != 11 || obs.events[4] != "finished safe-b/lock-y/1 ok=false" || obs.events[5] != "rerun 1 of safe-b/lock-y/1" {
		t.Errorf("events: %q", obs.events)
	}
	if err := res.Err(); !errors.Is(err, scenario.ErrUnexpected) || !strings.Contains(err.Error(), "1 of 9") {
		t.Errorf("Err: %v, want 1 of 9 unexpected", err)
	}
	m, err := results.LoadMatrix(filepath.Join(dir, results.MatrixFileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 9 || m.Kind != Scoreboard || m.InProgress || m.Interrupted || len(m.Subjects) != 3 || len(m.Scenarios) != 3 {
		t.Fatalf("matrix.json: %d cells, kind %q, in progress %v, interrupted %v", len(m.Cells), m.Kind, m.InProgress, m.Interrupted)
	}
	for i, c := range m.Cells {
		if c.Dir != c.Scenario+"/"+c.Subject+"-1" || c.Wall != time.Second {
			t.Errorf("cell %d: dir %q, wall %s", i, c.Dir, c.Wall)
		}
		if _, err := os.Stat(filepath.Join(dir, c.Dir, results.SummaryFile)); err != nil {
			t.Errorf("cell %s: %v", c.Key(), err)
		}
	}
	f := m.Cells[4]
	if len(f.Reruns) != 2 || f.Reruns[1].Dir != "safe-b/lock-y-1-rerun-2" || f.Reruns[1].Verdict != model.Invalid || len(f.Findings()) != 1 {
		t.Errorf("the finding: %+v", f)
	}
	if _, err := os.Stat(filepath.Join(dir, MarkdownFile)); err != nil {
		t.Error(err)
	}
}

// TestRunStopsWhenInterrupted: a matrix whose ctx ends mid-cell records the
// cells it ran, the cut one says it was interrupted, no rerun starts, and
// matrix.json says interrupted.
func TestRunStopsWhenInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	x := &fakeExec{bad: func(c scenario.Cell, try int) []string {
		return []string{model.CheckMutualExclusion} // every cell a finding
	}}
	x.after = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	res, err := Run(ctx, fakeConfig(dir, x, nil, newFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	// Cell 1 is a finding: its reruns are runs 2 and 3, but run 2 ends
	// the matrix, so run 3 never starts.
	if len(x.keys) != 2 || !res.Interrupted || !res.File.Interrupted || len(res.File.Cells) != 1 {
		t.Fatalf("ran %v; interrupted %v; cells %+v", x.keys, res.Interrupted, res.File.Cells)
	}
	if r := res.File.Cells[0].Reruns; len(r) != 1 || !strings.HasPrefix(r[0].Error, "interrupted") {
		t.Errorf("reruns: %+v", r)
	}
}

// TestRunCellError: a run that could not be made is made once more; one
// that could not be made twice is an infrastructure error of its cell,
// linked to nothing, and the matrix goes on.
func TestRunCellError(t *testing.T) {
	dir := t.TempDir()
	x := &fakeExec{errAt: []int{2, 3}}
	res, err := Run(t.Context(), fakeConfig(dir, x, nil, newFakeClock(t0)))
	if err != nil {
		t.Fatal(err)
	}
	if len(x.keys) != 10 || !errors.Is(res.Err(), scenario.ErrInfrastructure) {
		t.Fatalf("ran %d; Err %v", len(x.keys), res.Err())
	}
	c := res.File.Cells[1]
	if c.Error != errRun.Error() || c.Dir != "" || c.OK {
		t.Errorf("the cell that could not run: %+v", c)
	}
	once := &fakeExec{errAt: []int{2}}
	res, err = Run(t.Context(), fakeConfig(t.TempDir(), once, nil, newFakeClock(t0)))
	if err != nil || len(once.keys) != 10 || errors.Is(res.Err(), scenario.ErrInfrastructure) || res.File.Cells[1].Error != "" {
		t.Fatalf("a run that failed once: ran %d, Err %v, cell %+v, %v: want it made again and counted", len(once.keys), res.Err(), res.File.Cells[1], err)
	}
	// A run that failed after writing its directory: the retry runs in a
	// directory of its own, the failed run's kept.
	dir = t.TempDir()
	wrote := &fakeExec{wroteAt: []int{2}}
	res, err = Run(t.Context(), fakeConfig(dir, wrote, nil, newFakeClock(t0)))
	c = res.File.Cells[1]
	if err != nil || errors.Is(res.Err(), scenario.ErrInfrastructure) || c.Error != "" || c.Dir != string(wrote.keys[1])+"-retry-1" || wrote.keys[2] != Key(c.Dir) {
		t.Fatalf("a run that failed after writing: ran %v, Err %v, cell %+v, %v: want it made again in a directory of its own", wrote.keys, res.Err(), c, err)
	}
}

// TestRunBadConfig: a Config that cannot run is ErrConfig, naming the field.
func TestRunBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"kind", func(c *Config) { c.Kind = "weekly" }, "Kind"},
		{"seeds", func(c *Config) { c.Seeds = nil }, "Seeds"},
		{"dir", func(c *Config) { c.Dir = "" }, "Dir"},
		{"reruns", func(c *Config) { c.Reruns = -1 }, "Reruns"},
	} {
		cfg := fakeConfig(t.TempDir(), &fakeExec{}, nil, newFakeClock(t0))
		tc.edit(&cfg)
		if _, err := Run(t.Context(), cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrConfig naming %s", tc.name, err, tc.want)
		}
	}
}

// Start says how many cells a shard holds: Finished is heard once for
// each, and the shards' counts add up to the whole matrix's.
func TestStartCountsShardCells(t *testing.T) {
	total := 0
	for _, sh := range []scenario.Shard{{I: 1, N: 2}, {I: 2, N: 2}} {
		obs := &recorder{}
		cfg := fakeConfig(t.TempDir(), &fakeExec{bad: detects}, obs, newFakeClock(t0))
		cfg.Shard = sh
		if _, err := Run(t.Context(), cfg); err != nil {
			t.Fatal(err)
		}
		finished := 0
		for _, ev := range obs.events {
			if strings.HasPrefix(ev, "finished ") {
				finished++
			}
		}
		if len(obs.started) != 1 || obs.started[0].Cells != finished {
			t.Errorf("shard %s: started %+v, %d cells finished", sh, obs.started, finished)
		}
		total += finished
	}
	if total != 9 {
		t.Errorf("the shards finished %d cells, want the matrix's 9", total)
	}
}
