package bench

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeReport is a hand-made report with two subjects, one uncontended and
// one contended cell.
func fakeReport() *Report {
	cont := func(share float64, p50, maxWait time.Duration, grants ...int64) *Contention {
		c := &Contention{OwnerChange: share, Handoffs: 10, HandoffP50: p50, HandoffP99: 2 * p50, WaitP50: p50, WaitP99: maxWait / 2, MaxWait: maxWait}
		for _, g := range grants {
			c.Workers = append(c.Workers, WorkerWaits{Grants: g, P50: p50, P99: maxWait / 2, Max: maxWait})
		}
		return c
	}
	return &Report{
		Started: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Elapsed: 42 * time.Second,
		Machine: Machine{OS: "linux", Arch: "amd64", CPUs: 2, CPU: "Test CPU", GoVersion: "go1.26", RedisVersion: "7.0.15"},
		Mode:    "quick", Rounds: 2, Window: 300 * time.Millisecond,
		Subjects: []SubjectInfo{{Name: "ours", Doc: "our lock", Fair: true}, {Name: "peer", Doc: "a polling lock"}},
		Ceiling:  []CeilingRow{{Workers: 1, PerRound: []float64{20000, 22000}, CallsPerSec: 21000}, {Workers: 2, PerRound: []float64{30000, 30000}, CallsPerSec: 30000}},
		Uncontended: []Row{
			{Subject: "ours", Workers: 1, PerRound: []float64{5000, 5200}, CyclesPerSec: 5100, OfCeiling: 5100 / 10500.0, Cycles: 3000},
			{Subject: "peer", Workers: 1, PerRound: []float64{4000, 4200}, CyclesPerSec: 4100, OfCeiling: 4100 / 10500.0, Cycles: 2500},
		},
		Contended: []Row{
			{Subject: "ours", Workers: 2, PerRound: []float64{3000, 3000}, CyclesPerSec: 3000, OfCeiling: 0.2, Cycles: 1800, Contention: cont(0.9, 200*time.Microsecond, 3*time.Millisecond, 900, 900)},
			{Subject: "peer", Workers: 2, PerRound: []float64{9000, 9000}, CyclesPerSec: 9000, OfCeiling: 0.6, Cycles: 5400, Contention: cont(0.004, 150*time.Millisecond, 1200*time.Millisecond, 0, 5400)},
		},
	}
}

func TestWriteTables(t *testing.T) {
	var b bytes.Buffer
	if err := fakeReport().WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"quick: 2 rounds", "Test CPU", "redis 7.0.15", "2026-01-02 03:04 UTC",
		"21,000", "10,500", // ceiling calls/s and cycle ceiling
		"5,100 (49%)", "4,100 (39%)", // uncontended with share of the ceiling
		"0.40%", "150 ms", "1200 ms", "0–5,400", // contended: owner change, hand-off, starvation, grants spread
		"1.24×", "0.33×", // ratios ours/peer: uncontended 5100/4100, contended 3000/9000
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "results")
	r := fakeReport()
	for range 2 {
		if err := r.WriteDir(dir); err != nil {
			t.Fatal(err)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, LatestMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# lockcheck bench, 2026-01-02", "`peer`: a polling lock", "|", "owner change", "**overtakes**"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("%s lacks %q", LatestMarkdown, want)
		}
	}
	latest := readCSV(t, filepath.Join(dir, LatestCSV))
	if len(latest) != 1+2+2+2 { // header, 2 ceiling, 2 uncontended, 2 contended
		t.Fatalf("%s has %d lines, want 7", LatestCSV, len(latest))
	}
	col := map[string]int{}
	for i, h := range latest[0] {
		col[h] = i
	}
	last := latest[len(latest)-1]
	if last[col["kind"]] != "contended" || last[col["subject"]] != "peer" || last[col["min_worker_grants"]] != "0" || last[col["owner_change"]] != "0.004" {
		t.Errorf("last line = %v", last)
	}
	if got := latest[1][col["cycles_per_s_rounds"]]; got != "10000;11000" {
		t.Errorf("ceiling rounds = %q, want halves of calls/s", got)
	}
	history := readCSV(t, filepath.Join(dir, HistoryCSV))
	if len(history) != 1+2*6 {
		t.Errorf("%s has %d lines after two runs, want one header and 12", HistoryCSV, len(history))
	}
	f, err := os.Open(filepath.Join(dir, LatestPNG))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", LatestPNG, err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
		t.Errorf("plot is %v", b)
	}
	js, err := os.ReadFile(filepath.Join(dir, LatestJSON))
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if back.Contended[1].Contention.MaxWait != r.Contended[1].Contention.MaxWait || back.Machine != r.Machine {
		t.Errorf("%s does not round-trip: %+v", LatestJSON, back)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return lines
}

// TestHeadlineStatesTheCommit: latest.md's headline states the commit that
// measured, when the binary records one.
func TestHeadlineStatesTheCommit(t *testing.T) {
	r := &Report{Machine: Machine{Commit: "0123456789abcdef"}}
	if h := r.headline(); !strings.Contains(h, "at commit 0123456789ab,") {
		t.Errorf("headline %q states no commit", h)
	}
	r.Machine.Commit = ""
	if h := r.headline(); strings.Contains(h, "commit") {
		t.Errorf("headline %q names a commit it does not have", h)
	}
}
