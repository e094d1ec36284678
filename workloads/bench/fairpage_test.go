package bench

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// contendedRow is a made-up contended row: rate cycles/s, waits p50 and
// max, owner changes and the grants of two threads.
func contendedRow(s string, n int, rate float64, p50, worst time.Duration, change float64, lo, hi int64) Row {
	c := &Contention{WaitP50: p50, WaitP99: worst, MaxWait: worst, OwnerChange: change, HandoffP50: p50 / 2,
		Workers: []WorkerWaits{{Grants: lo}, {Grants: hi}}}
	for _, q := range CDFQuantiles {
		c.WaitCDF = append(c.WaitCDF, WaitQuantile{Q: q, Wait: p50 + time.Duration(q/100*float64(worst-p50))})
	}
	return Row{Subject: s, Workers: n, CyclesPerSec: rate, Contention: c}
}

func fairReport() *Report {
	r := &Report{Threads: true, Subjects: []SubjectInfo{{Name: "reentrant"}, {Name: "fair"}, {Name: "redisson"}, {Name: "redisson-fair"}}}
	for _, n := range []int{8, 32} {
		f := float64(n)
		r.Contended = append(r.Contended,
			contendedRow("reentrant", n, 4000, time.Millisecond, 100*time.Millisecond, 0.7, 0, 900),
			contendedRow("fair", n, 2000, 4*time.Millisecond, 8*time.Millisecond, 1, 60, 61),
			contendedRow("redisson", n, 400+f, 10*time.Millisecond, 200*time.Millisecond, 0.6, 2, 11),
			contendedRow("redisson-fair", n, 100, 20*time.Millisecond, 40*time.Millisecond, 1, 5, 6))
		r.Uncontended = append(r.Uncontended, Row{Subject: "reentrant", Workers: n, CyclesPerSec: 10000}, Row{Subject: "fair", Workers: n, CyclesPerSec: 9000})
	}
	return r
}

// The page has its plots and one paragraph per finding, with the figures
// of the report: the ratios and waits it states are the made-up ones.
func TestWriteFairPage(t *testing.T) {
	dir := t.TempDir()
	if err := fairReport().WriteFairPage(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FairThroughputPNG, FairWaitCDFPNG, FairHandoffRatePNG} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
			t.Errorf("%s: %d bytes, %v", f, len(b), err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, FairPage))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"**Throughput.**", "**Waits at 32 threads.**", "**Hand-offs at 32 threads.**", "**Starvation at 32 threads.**", "**Library vs library.**",
		"at 32 threads 2,000 cycles/s against 4,000, 0.50× as fast (slower)", // fair vs reentrant
		"it is 0.90× as fast (within 5%)",                                    // uncontended 9000 vs 10000: not within 5%
		"`reentrant`'s threads got 0–900 grants each",
		"1 of the locks left a thread without any grant",
		"`fair` passes the lock on more often than `reentrant`",
		"`fair`'s worst wait is shorter than `reentrant`'s",
		"`reentrant` is 9.80× as fast at 8 threads, 9.26× as fast at 32 threads", // 4000 / 408, 4000 / 432
	} {
		if want == "it is 0.90× as fast (within 5%)" {
			if strings.Contains(page, want) {
				t.Errorf("page says a 10%% gap is within 5%%")
			}
			continue
		}
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}

func TestWriteFairPageNeedsAPair(t *testing.T) {
	r := fairReport()
	r.Contended = r.Contended[:1] // reentrant only
	if err := r.WriteFairPage(t.TempDir()); !errors.Is(err, ErrNoFairPair) {
		t.Errorf("err = %v, want ErrNoFairPair", err)
	}
}
