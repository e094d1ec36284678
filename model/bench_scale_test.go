package model

import (
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"
)

// Benchmarks of the check at nightly scale (issue 33): what `lockcheck
// check` does with a history file of 1M and 10M ops, read (ReadFile) and
// every checker run (Check), valid and with one double grant injected
// (invalid, explained). The histories are simulated as in BenchmarkCheckFile
// (sections, fencing tokens, 2% info ops) with 15,625 ops a lock, 64 locks
// at 1M and 640 at 10M: a retired hold outlives the simulated run (its
// lease is the 30 s watchdog), so a lock's history is cut only where a
// live process holds it (heldCut), and the locks grow with the run. Each reports the file's size
// the peak heap under the command's soft memory limit, and the CPU time
// of the check (cpu-s/op, both cores' worth):
//
//	go test -run '^$' -bench 'Check(1M|10M)' -benchtime 1x ./model/
//
// The 10M ones (1.2 GB file, minutes to generate) are skipped under -short.

func BenchmarkCheck1MValid(b *testing.B)       { benchCheckScale(b, 1_000_000, false) }
func BenchmarkCheck1MDoubleGrant(b *testing.B) { benchCheckScale(b, 1_000_000, true) }
func BenchmarkCheck10MValid(b *testing.B)      { benchCheckScale(b, 10_000_000, false) }
func BenchmarkCheck10MDoubleGrant(b *testing.B) {
	benchCheckScale(b, 10_000_000, true)
}

func benchCheckScale(b *testing.B, n int, broken bool) {
	if n > 1_000_000 && testing.Short() {
		b.Skip("a 10M-op history is not generated under -short")
	}
	path := filepath.Join(b.TempDir(), "history.jsonl")
	size := writeScaled(b, path, n, broken)
	want := Valid
	if broken {
		want = Invalid
	}
	benchReadCheck(b, path, size, want)
}

// benchReadCheck reads the history file at path (size bytes) and checks
// it, b.N times, under the soft memory limit `lockcheck check` sets: the
// verdict, and the linearizability checker's, must be want (an Invalid
// one explained). It reports the CPU time, the file size and the peak
// heap.
func benchReadCheck(b *testing.B, path string, size int64, want Verdict) {
	prev := debug.SetMemoryLimit(max(size*5/2, 256<<20))
	defer debug.SetMemoryLimit(prev)
	var peak uint64
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
		stop := samplePeakHeap(&peak)
		h, err := ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		rep := Check(h, Options{Timeout: 5 * time.Minute})
		stop()
		lin, _ := rep.Result(CheckLinearizable)
		if rep.Verdict != want || lin.Verdict != want || (want == Invalid && len(lin.Examples) == 0) {
			b.Fatalf("verdict %s (linearizable %s), want %s:\n%s", rep.Verdict, lin.Verdict, want, rep)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(size)/1e6, "file-MB")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(float64(peak)/float64(size), "peak/file")
}

// cpuTime is the CPU time (user and system) the process has used: on a
// busy machine it says more about the check than the wall clock does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// writeScaled writes a simulated history of n ops (15,625 a lock; one
// double grant injected when broken) to path and returns its size.
func writeScaled(b *testing.B, path string, n int, broken bool) int64 {
	b.Helper()
	r := rand.New(rand.NewPCG(uint64(n), 33))
	h, ws := simulate(r, simConfig{locks: max(n/15_625, 1), procs: 8, ops: n, infoRate: 0.02, sections: true})
	if broken {
		var ok bool
		if h, ok = injectDoubleGrant(r, h, ws); !ok {
			b.Fatal("nothing to inject a double grant into")
		}
	}
	return writeHistoryFile(b, path, h)
}
