package impl

import (
	"context"
	"fmt"
	"slices"
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
	benchUncontended(b, func(c *Client, name, owner string) Locker { return c.Reentrant(name, owner) })
}

// BenchmarkReentrantContendedHandoff: see benchContended.
func BenchmarkReentrantContendedHandoff(b *testing.B) {
	benchContended(b, func(c *Client, name, owner string) Locker { return c.Reentrant(name, owner) })
}

// BenchmarkFencedUncontended is BenchmarkReentrantUncontended for the fenced
// lock (one more INCR per grant).
func BenchmarkFencedUncontended(b *testing.B) {
	benchUncontended(b, func(c *Client, name, owner string) Locker { return c.Fenced(name, owner) })
}

// BenchmarkFencedContendedHandoff is BenchmarkReentrantContendedHandoff for
// the fenced lock.
func BenchmarkFencedContendedHandoff(b *testing.B) {
	benchContended(b, func(c *Client, name, owner string) Locker { return c.Fenced(name, owner) })
}

// benchUncontended measures one lock/unlock cycle of one owner on a free
// lock, lease 0 (watchdog) and 10 s, reporting cycles/s and allocs/op (one
// op is one cycle).
func benchUncontended(b *testing.B, newLocker func(c *Client, name, owner string) Locker) {
	s := redistest.Start(b, faults.ServerConfig{})
	for _, lease := range []time.Duration{0, 10 * time.Second} {
		b.Run(fmt.Sprintf("lease=%v", lease), func(b *testing.B) {
			c, _ := newTestClient(b, s, WithWatchdogTimeout(30*time.Second))
			l := newLocker(c, "bench-uncontended", "o")
			ctx := context.Background()
			b.ReportAllocs()
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

// benchContended runs workers (one Client each) that lock, bump a counter
// and unlock one lock in a loop, b.N cycles in all. It reports cycles/s, the
// share of grants that went to a different worker than the previous holder
// (%handoff), and the hand-off latency from the moment the previous holder
// called Unlock to the grant of a different worker (handoff-p50-µs,
// handoff-p99-µs; same-owner re-grants excluded), and the acquire and
// unlock scripts the server ran per cycle (scripts/op: 2 without a herd),
// and allocs/op: the allocations of all workers per cycle.
func benchContended(b *testing.B, newLocker func(c *Client, name, owner string) Locker) {
	s := redistest.Start(b, faults.ServerConfig{})
	for _, workers := range []int{2, 8, 32} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			clients := make([]*Client, workers)
			for i := range clients {
				clients[i], _ = newTestClient(b, s, WithWatchdogTimeout(30*time.Second))
			}
			ctx := context.Background()
			var (
				remaining  atomic.Int64
				last       atomic.Int64 // worker id of the last holder (+1)
				unlockedAt atomic.Int64 // when the last holder called Unlock, ns since start
				mu         sync.Mutex
				handoffs   []time.Duration
				wg         sync.WaitGroup
				errOnce    sync.Once
				firstErr   error
			)
			remaining.Store(int64(b.N))
			stats := redistest.Client(b, s)
			_, scriptsBefore := serverCommands(b, stats)
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for i := range workers {
				l := newLocker(clients[i], "bench-contended", fmt.Sprint(i))
				wg.Go(func() {
					var mine []time.Duration
					defer func() {
						mu.Lock()
						handoffs = append(handoffs, mine...)
						mu.Unlock()
					}()
					for remaining.Add(-1) >= 0 {
						if err := l.Lock(ctx, 0); err != nil {
							errOnce.Do(func() { firstErr = err })
							return
						}
						granted := time.Since(start)
						if prev := last.Swap(int64(i + 1)); prev != 0 && prev != int64(i+1) {
							mine = append(mine, granted-time.Duration(unlockedAt.Load()))
						}
						unlockedAt.Store(int64(time.Since(start)))
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
			_, scriptsAfter := serverCommands(b, stats)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "cycles/s")
			b.ReportMetric(float64(scriptsAfter-scriptsBefore)/float64(b.N), "scripts/op")
			b.ReportMetric(100*float64(len(handoffs))/float64(b.N), "%handoff")
			if len(handoffs) > 0 {
				slices.Sort(handoffs)
				q := func(p float64) float64 {
					return float64(handoffs[int(p*float64(len(handoffs)-1))].Microseconds())
				}
				b.ReportMetric(q(0.50), "handoff-p50-µs")
				b.ReportMetric(q(0.99), "handoff-p99-µs")
			}
		})
	}
}
