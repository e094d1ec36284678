package impl

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/faults/redistest"
)

// BenchmarkReentrantUncontended measures one lock/unlock cycle of one owner
// on a free lock: watchdog-renewed (lease 0) and with an explicit lease.
func BenchmarkReentrantUncontended(b *testing.B) {
	s := redistest.Start(b, faults.ServerConfig{})
	for _, lease := range []time.Duration{0, 10 * time.Second} {
		b.Run(fmt.Sprintf("lease=%v", lease), func(b *testing.B) {
			c, _ := newTestClient(b, s, WithWatchdogTimeout(30*time.Second))
			l := c.Reentrant("bench-uncontended", "o")
			ctx := context.Background()
			start := time.Now()
			for b.Loop() {
				if err := l.Lock(ctx, lease); err != nil {
					b.Fatal(err)
				}
				if err := l.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "cycles/s")
		})
	}
}

// BenchmarkReentrantContendedHandoff runs workers (one Client each) that
// lock, bump a counter and unlock one lock in a loop, b.N cycles in all. It
// reports cycles/s and the share of grants that went to a different worker
// than the previous holder (hand-offs).
func BenchmarkReentrantContendedHandoff(b *testing.B) {
	s := redistest.Start(b, faults.ServerConfig{})
	for _, workers := range []int{2, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			clients := make([]*Client, workers)
			for i := range clients {
				clients[i], _ = newTestClient(b, s, WithWatchdogTimeout(30*time.Second))
			}
			ctx := context.Background()
			var (
				remaining atomic.Int64
				last      atomic.Int64 // worker id of the last holder (+1)
				handoffs  atomic.Int64
				wg        sync.WaitGroup
				errOnce   sync.Once
				firstErr  error
			)
			remaining.Store(int64(b.N))
			b.ResetTimer()
			start := time.Now()
			for i := range workers {
				l := clients[i].Reentrant("bench-contended", fmt.Sprint(i))
				wg.Go(func() {
					for remaining.Add(-1) >= 0 {
						if err := l.Lock(ctx, 0); err != nil {
							errOnce.Do(func() { firstErr = err })
							return
						}
						if prev := last.Swap(int64(i + 1)); prev != 0 && prev != int64(i+1) {
							handoffs.Add(1)
						}
						if err := l.Unlock(ctx); err != nil {
							errOnce.Do(func() { firstErr = err })
							return
						}
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if firstErr != nil {
				b.Fatal(firstErr)
			}
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "cycles/s")
			b.ReportMetric(100*float64(handoffs.Load())/float64(b.N), "%handoff")
		})
	}
}
