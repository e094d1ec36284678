package permits

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// Nemesis makes the faults of one run once its clients exist, from the
// run's faults.Clients (see clients); nil runs no fault.
type Nemesis func(c faults.Clients) (*faults.Nemesis, error)

// ErrNemesis wraps a nemesis failure: the run did not get the faults it
// asked for, so its verdict proves nothing. It is the lock runner's
// sentinel (workloads.ErrNemesis): one check serves both runners.
var ErrNemesis = workloads.ErrNemesis

// procSet is the clients of a run's processes: each process's Maker and
// go-redis client, each closed once (by a crash, or at the run's end);
// set replaces a crashed process's.
type procSet struct {
	mu     sync.Mutex
	makers []io.Closer
	conns  []redis.UniversalClient
	closed []bool
}

func newProcSet(n int) *procSet {
	return &procSet{makers: make([]io.Closer, n), conns: make([]redis.UniversalClient, n), closed: make([]bool, n)}
}

// set makes m and rdb process p's, open.
func (s *procSet) set(p int, m io.Closer, rdb redis.UniversalClient) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.makers[p], s.conns[p], s.closed[p] = m, rdb, false
}

func (s *procSet) maker(p int) io.Closer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.makers[p]
}

func (s *procSet) conn(p int) redis.UniversalClient {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns[p]
}

// all are the processes' Makers now.
func (s *procSet) all() []io.Closer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.makers)
}

func (s *procSet) len() int { return len(s.makers) }

// close closes process p's Maker and client, unless they are closed.
func (s *procSet) close(p int) {
	s.mu.Lock()
	m, rdb, done := s.makers[p], s.conns[p], s.closed[p]
	s.closed[p] = true
	s.mu.Unlock()
	if done {
		return
	}
	if m != nil {
		_ = m.Close()
	}
	if rdb != nil {
		_ = rdb.Close()
	}
}

func (s *procSet) closeAll() {
	for p := range s.makers {
		s.close(p)
	}
}

// clients are a run's faults.Clients: its workers, process p named "w<p>"
// (the admin, process 0, is no target).
//
//   - Stall makes target's next call wait until Unstall (a worker that holds
//     permits keeps them meanwhile: its release is that call). It returns
//     once the stall is in force, without waiting for the call.
//   - Crash retires target and closes its client at once: its ops in flight
//     end as info, and it calls nothing again. The permits it held stay
//     taken (a counting semaphore's for good, as a crashed Redisson
//     client's do; a permit's until its lease ends). A fresh client under
//     a fresh process id takes its place from the next round on.
type clients struct {
	rec   *recorder
	procs *procSet
}

func (c clients) Targets() []string {
	out := make([]string, 0, c.procs.len()-1)
	for p := 1; p < c.procs.len(); p++ {
		out = append(out, "w"+strconv.Itoa(p))
	}
	return out
}

func (c clients) process(target string) (int, error) {
	p, err := strconv.Atoi(strings.TrimPrefix(target, "w"))
	if err != nil || !strings.HasPrefix(target, "w") || p < 1 || p >= c.procs.len() {
		return 0, fmt.Errorf("permits: no client %q (targets: %v)", target, c.Targets())
	}
	return p, nil
}

func (c clients) Stall(_ context.Context, target string) error {
	p, err := c.process(target)
	if err == nil {
		c.rec.stall(p)
	}
	return err
}

func (c clients) Unstall(_ context.Context, target string) error {
	p, err := c.process(target)
	if err == nil {
		c.rec.unstall(p)
	}
	return err
}

func (c clients) Crash(_ context.Context, target string) error {
	p, err := c.process(target)
	if err != nil {
		return err
	}
	c.rec.retire(p)
	c.rec.unstall(p)
	c.procs.close(p)
	return nil
}

// procsOf are the processes a fault on target over [start, end] hits:
// those worker p had then ("w<p>": the worker itself, so not a
// replacement that began after the fault struck), or worker i had then
// ("c<i>": its link or wire, which its replacement dials too); none
// (every process) for a server-side target.
func (r *recorder) procsOf(target string, start, end int64) []int {
	for _, prefix := range []string{"w", "c"} {
		if rest, ok := strings.CutPrefix(target, prefix); ok {
			if w, err := strconv.Atoi(rest); err == nil {
				return r.idsDuring(w, start, end, prefix == "w")
			}
		}
	}
	return nil
}

// startNemesis builds the run's nemesis from mk and runs it until the
// returned stop is called; stop heals every fault, records the windows
// and returns the nemesis's error (wrapping ErrNemesis). A nil mk runs
// nothing.
func startNemesis(ctx context.Context, mk Nemesis, rec *recorder, procs *procSet) (stop func() error, err error) {
	if mk == nil {
		return func() error { return nil }, nil
	}
	n, err := mk(clients{rec: rec, procs: procs})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNemesis, err)
	}
	n.Record = func(w faults.Window) {
		start, end := rec.at(w.Start), rec.at(w.End)
		rec.fault(model.Fault{Name: w.Name, Target: w.Target, Start: start, End: end, Procs: rec.procsOf(w.Target, start, end)})
	}
	nctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- n.Run(nctx) }()
	return func() error {
		cancel()
		err := <-done
		rec.unstallAll()
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("%w: %w", ErrNemesis, err)
		}
		return nil
	}, nil
}

// at is t on the run's clock (never before 0).
func (r *recorder) at(t time.Time) int64 { return max(0, t.Sub(r.base).Nanoseconds()) }
