package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// testConfig stands in for the runner's configuration type.
type testConfig struct {
	Subject  string        `json:"subject"`
	Workload string        `json:"workload"`
	Seed     int64         `json:"seed"`
	Duration time.Duration `json:"duration"`
}

func TestRunDir(t *testing.T) {
	start := time.Date(2025, 3, 4, 5, 6, 7, 0, time.FixedZone("X", 3600))
	for _, tc := range []struct {
		scenario, want string
	}{
		{"mixed", "base/runs/mixed/20250304T040607-42"},
		{"mixed/reentrant lock", "base/runs/mixed-reentrant-lock/20250304T040607-42"},
		{"../..", "base/runs/run/20250304T040607-42"},
		{"", "base/runs/run/20250304T040607-42"},
	} {
		if got := RunDir("base", tc.scenario, start, 42); got != filepath.FromSlash(tc.want) {
			t.Errorf("RunDir(%q) = %q, want %q", tc.scenario, got, tc.want)
		}
	}
}

// writeSynthRun writes a run directory for the synthetic history.
func writeSynthRun(t *testing.T, dir string, h *model.History) (Summary, model.Report) {
	t.Helper()
	rep := model.Check(h, model.Options{})
	sum, err := WriteRun(dir, RunArtifacts{
		Subject: "reentrant", Workload: "counter", Seed: 42,
		Config:  testConfig{Subject: "reentrant", Workload: "counter", Seed: 42, Duration: 4 * time.Second},
		History: h, Report: rep,
	})
	if err != nil {
		t.Fatalf("WriteRun: %v", err)
	}
	return sum, rep
}

// stubPlots registers plot writers that draw a blank 1152x480 PNG until
// the test ends (package results/plots draws the real ones).
func stubPlots(t *testing.T) {
	blank := func(w io.Writer, _ *model.History, _ PlotOptions) error {
		return png.Encode(w, image.NewGray(image.Rect(0, 0, 1152, 480)))
	}
	RegisterPlots(blank, blank)
	t.Cleanup(func() { RegisterPlots(nil, nil) })
}

// TestWriteRunWithoutPlots: with no plots registered (a locktest user's
// process), a run directory has no plots and its summary links none.
func TestWriteRunWithoutPlots(t *testing.T) {
	dir := RunDir(t.TempDir(), "counter-reentrant", time.Unix(0, 0), 42)
	writeSynthRun(t, dir, synthHistory(42, 4*time.Second))
	for _, f := range []string{LatencyPlot, ThroughputPlot} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s drawn with no plots registered", f)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(md, []byte(".png")) {
		t.Errorf("summary.md links plots that were not drawn:\n%s", md)
	}
}

func TestWriteRun(t *testing.T) {
	stubPlots(t)
	h := synthHistory(42, 4*time.Second)
	dir := RunDir(t.TempDir(), "counter-reentrant", time.Unix(0, 0), 42)
	sum, rep := writeSynthRun(t, dir, h)
	if rep.Verdict != model.Valid {
		t.Fatalf("synthetic history checked %s:\n%s", rep.Verdict, rep)
	}

	for _, f := range []string{ConfigFile, HistoryFile, ResultFile, SummaryFile, HTMLFile, LatencyPlot, ThroughputPlot} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("missing %s: %v", f, err)
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", f)
		}
	}

	// result.json round-trips to the returned summary.
	b, err := os.ReadFile(filepath.Join(dir, ResultFile))
	if err != nil {
		t.Fatal(err)
	}
	var got Summary
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("result.json: %v", err)
	}
	if !reflect.DeepEqual(got, sum) {
		t.Errorf("result.json does not round-trip:\ngot  %+v\nwant %+v", got, sum)
	}
	if got.Stats.Grants == 0 || got.Stats.Acquire.P99 == 0 || got.Report.Verdict != model.Valid {
		t.Errorf("result.json lacks figures or verdict: %+v", got)
	}

	// The history written is the one given.
	hh, err := model.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(hh.Ops) != len(h.Ops) || len(hh.Faults) != 1 {
		t.Errorf("history.jsonl has %d ops and %d faults, want %d and 1", len(hh.Ops), len(hh.Faults), len(h.Ops))
	}

	// summary.md holds the table, the verdict of every checker and the fault.
	md, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| subject", "reentrant", "VALID", model.CheckLinearizable, model.CheckMutualExclusion, "pause redis-1", LatencyPlot} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}

	html, err := os.ReadFile(filepath.Join(dir, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("pause")) {
		t.Errorf("history.html does not annotate the fault window")
	}

	for _, f := range []string{LatencyPlot, ThroughputPlot} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 300 {
			t.Errorf("%s is %dx%d, too small to read", f, b.Dx(), b.Dy())
		}
	}
}

func TestWriteRunInvalidVerdict(t *testing.T) {
	// Two processes granted the same lock at once.
	h := &model.History{Ops: []model.Op{
		{Process: 1, Lock: "L", Kind: model.Acquire, Call: 0, Return: 10, Lease: int64(time.Minute), Blocking: true, Outcome: model.OK},
		{Process: 2, Lock: "L", Kind: model.Acquire, Call: 20, Return: 30, Lease: int64(time.Minute), Blocking: true, Outcome: model.OK},
		{Process: 1, Lock: "L", Kind: model.Release, Call: 40, Return: 50, Outcome: model.OK},
	}}
	dir := t.TempDir()
	rep := model.Check(h, model.Options{})
	if rep.Verdict != model.Invalid {
		t.Fatalf("double grant checked %s", rep.Verdict)
	}
	if _, err := WriteRun(dir, RunArtifacts{Subject: "mutant", Workload: "contended", History: h, Report: rep}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "INVALID") || !strings.Contains(string(md), "| invalid") || !strings.Contains(string(md), "Signatures of the violations: ") || !strings.Contains(string(md), "`safety/double-grant.cut-short/acquire/none`") {
		t.Errorf("summary.md does not report the violation:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, ConfigFile)); !os.IsNotExist(err) {
		t.Errorf("config.json written without a config: %v", err)
	}
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := model.ParseSignature("safety/double-grant/acquire/none")
	if run.Result == nil || !want.MatchesAny(run.Result.Signatures) {
		t.Errorf("result.json's signatures lack %s: %+v", want, run.Result)
	}
}

func TestWriteRunKeepsRunnerHistory(t *testing.T) {
	h := synthHistory(3, 3*time.Second)
	rep := model.Check(h, model.Options{})

	// The runner's own file in the run directory is never overwritten.
	dir := t.TempDir()
	prefix := &model.History{Header: h.Header, Ops: h.Ops[:5]}
	var buf bytes.Buffer
	if err := model.WriteHistory(&buf, prefix); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, HistoryFile), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRun(dir, RunArtifacts{History: h, Report: rep}); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(dir, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, buf.Bytes()) {
		t.Errorf("WriteRun overwrote the runner's history.jsonl")
	}

	// A history the runner wrote elsewhere is copied.
	dir2 := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(elsewhere, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteRun(dir2, RunArtifacts{History: h, Report: rep, HistoryPath: elsewhere}); err != nil {
		t.Fatal(err)
	}
	copied, err := os.ReadFile(filepath.Join(dir2, HistoryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(copied, buf.Bytes()) {
		t.Errorf("WriteRun did not copy the runner's history")
	}
}

func TestWriteRunNoHistory(t *testing.T) {
	if _, err := WriteRun(t.TempDir(), RunArtifacts{}); err == nil {
		t.Fatal("WriteRun without a history succeeded")
	}
}

// NewRunDir gives every caller a directory of its own, even to callers
// that start in the same millisecond with the same seed, concurrently.
func TestNewRunDirIsExclusive(t *testing.T) {
	base := t.TempDir()
	start := time.Date(2026, 11, 24, 23, 17, 22, 123_456_789, time.UTC)
	const n = 16
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { dirs[i], errs[i] = NewRunDir(base, "mixed-reentrant", start, 3, "") })
	}
	wg.Wait()
	seen := map[string]bool{}
	for i, d := range dirs {
		if errs[i] != nil {
			t.Fatalf("NewRunDir: %v", errs[i])
		}
		if seen[d] {
			t.Fatalf("%s given twice", d)
		}
		seen[d] = true
	}
	for i := 1; i <= n; i++ {
		want := filepath.Join(base, "runs", "mixed-reentrant", fmt.Sprintf("20261124T231722.123-%d-3", i))
		if !seen[want] {
			t.Errorf("no directory %s among %v", want, dirs)
		}
	}
	d, err := NewRunDir(base, "client-stall", start, 7, "reentrant")
	if want := filepath.Join(base, "runs", "client-stall", "20261124T231722.123-1-7-reentrant"); err != nil || d != want {
		t.Errorf("with a tag: %q, %v; want %q", d, err, want)
	}
}

// TestLoadRunGzipped: a run whose history and result are kept gzipped (as
// a page keeps them) loads as the run it was, and its summary links the
// gzipped files.
func TestLoadRunGzipped(t *testing.T) {
	dir := t.TempDir()
	writeSynthRun(t, dir, synthHistory(7, 2*time.Second))
	want, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	kept := t.TempDir()
	for _, name := range []string{HistoryFile, ResultFile} {
		if err := CompressFile(filepath.Join(dir, name), filepath.Join(kept, name+Gz), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := CompressFile(filepath.Join(dir, HistoryFile), filepath.Join(kept, HistoryFile+Gz), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("compressing over a kept file: %v, want fs.ErrExist", err)
	}
	got, err := LoadRun(kept)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.History.Ops) != len(want.History.Ops) || got.Result == nil || got.Result.Report.Verdict != want.Result.Report.Verdict {
		t.Errorf("the gzipped run: %d ops, result %v; want %d ops, verdict %s", len(got.History.Ops), got.Result, len(want.History.Ops), want.Result.Report.Verdict)
	}
	if err := RewriteSummary(kept); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(kept, SummaryFile))
	if !strings.Contains(string(md), "[history.jsonl.gz](history.jsonl.gz)") || strings.Contains(string(md), "(history.jsonl)") {
		t.Errorf("the summary does not link the gzipped history:\n%s", md)
	}
}
