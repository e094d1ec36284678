package model

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Benchmarks of what `lockcheck check` does with a history file: read it
// (ReadFile) and run every checker (Check), on simulated valid histories of
// 10k, 100k and 1M ops over 64 locks with sections, tokens and 2% info ops.
// They report the file size and the peak heap (sampled every millisecond)
// under the soft memory limit the command sets (2.5 times the file, at
// least 256 MiB), and the ratio of the two:
//
//	go test -run '^$' -bench CheckFile -benchtime 1x ./model/

func BenchmarkCheckFile10k(b *testing.B)  { benchCheckFile(b, 10_000) }
func BenchmarkCheckFile100k(b *testing.B) { benchCheckFile(b, 100_000) }
func BenchmarkCheckFile1M(b *testing.B)   { benchCheckFile(b, 1_000_000) }

func benchCheckFile(b *testing.B, n int) {
	path := filepath.Join(b.TempDir(), "history.jsonl")
	benchReadCheck(b, path, writeSimulated(b, path, n), Valid)
}

// writeSimulated writes a simulated history of n ops to path and returns
// its size in bytes.
func writeSimulated(b *testing.B, path string, n int) int64 {
	b.Helper()
	h, _ := simulate(rand.New(rand.NewPCG(uint64(n), 1)), simConfig{locks: 64, procs: 8, ops: n, infoRate: 0.02, sections: true})
	return writeHistoryFile(b, path, h)
}

// writeHistoryFile writes h to path as JSON Lines and returns the file's
// size in bytes.
func writeHistoryFile(t testing.TB, path string, h *History) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := WriteHistory(w, h); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// samplePeakHeap raises *peak to the largest heap in use seen until the
// returned stop function is called.
func samplePeakHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		*peak = max(*peak, m.HeapInuse)
	}
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				sample()
			}
		}
	})
	return func() { close(done); wg.Wait(); sample() }
}
