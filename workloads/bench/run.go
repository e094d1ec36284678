package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// cell is one column of the matrix: a kind and a worker count.
type cell struct {
	contended bool
	workers   int
}

func (c cell) String() string {
	if c.contended {
		return fmt.Sprintf("contended %d", c.workers)
	}
	return fmt.Sprintf("uncontended %d", c.workers)
}

// Run measures subjects (see Subjects) per cfg and returns the
// report. It starts its own redis-server unless cfg.Redis is set, and leaves
// nothing running when it returns. A subject that fails to open or warm up
// fails the run; errors inside a window are counted in the report instead.
func Run(ctx context.Context, cfg Config, subjects []subject.Subject) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := checkSubjects(subjects); err != nil {
		return nil, err
	}
	started := time.Now()
	opts := cfg.Redis
	if opts == nil {
		srv, err := faults.StartServer(ctx, faults.ServerConfig{})
		if err != nil {
			return nil, fmt.Errorf("bench: start redis-server: %w", err)
		}
		defer srv.Close()
		opts = srv.Options()
	}
	rep := &Report{
		Started: started.UTC(),
		Mode:    cfg.mode(),
		Rounds:  cfg.Rounds,
		Window:  cfg.Duration,
		Lease:   cfg.Lease,
		Machine: describeMachine(ctx, opts),
	}
	for _, s := range subjects {
		rep.Subjects = append(rep.Subjects, SubjectInfo{Name: s.Name, Doc: s.Doc, Fair: s.Fair})
	}

	var cells []cell
	for _, n := range cfg.Uncontended {
		cells = append(cells, cell{false, n})
	}
	for _, n := range cfg.Contended {
		cells = append(cells, cell{true, n})
	}
	rows := map[cell][]*rowAcc{}
	for _, c := range cells {
		accs := make([]*rowAcc, len(subjects))
		for i := range accs {
			accs[i] = &rowAcc{}
		}
		rows[c] = accs
	}
	ceilings := map[int]*CeilingRow{}
	runID := started.UnixNano()

	for round := range cfg.Rounds {
		measured := map[int]bool{} // ceiling worker counts done this round
		for _, c := range cells {
			// The ceiling (index -1) joins the first cell of its worker count;
			// the order rotates with the round so no subject always runs first.
			order := make([]int, 0, len(subjects)+1)
			if !measured[c.workers] {
				measured[c.workers] = true
				order = append(order, -1)
			}
			for i := range subjects {
				order = append(order, i)
			}
			k := round % len(order)
			order = append(order[k:], order[:k]...)
			for _, i := range order {
				name := "ceiling"
				if i >= 0 {
					name = subjects[i].Name
				}
				prefix := fmt.Sprintf("lockcheck-bench:%d:r%d:%s:%s%d", runID, round, name, map[bool]string{false: "u", true: "c"}[c.contended], c.workers)
				var res *windowResult
				switch {
				case i < 0:
					res, err = runCeiling(ctx, opts, c.workers, cfg.Duration, prefix)
				case c.contended:
					res, err = runContended(ctx, opts, subjects[i], c.workers, cfg.Duration, cfg.Lease, prefix)
				default:
					res, err = runUncontended(ctx, opts, subjects[i], c.workers, cfg.Duration, cfg.Lease, prefix)
				}
				if err != nil {
					return nil, fmt.Errorf("bench: round %d, %v, %s: %w", round+1, c, name, err)
				}
				rate := float64(res.ops) / cfg.Duration.Seconds()
				if i < 0 {
					cr := ceilings[c.workers]
					if cr == nil {
						cr = &CeilingRow{Workers: c.workers}
						ceilings[c.workers] = cr
					}
					cr.PerRound = append(cr.PerRound, rate)
					cr.Errors += res.errs.n
				} else {
					rows[c][i].add(res, rate)
				}
				if cfg.Progress != nil {
					fmt.Fprintf(cfg.Progress, "round %d/%d  %-15s %-16s %10s/s\n", round+1, cfg.Rounds, c, name, count(rate))
				}
			}
		}
	}

	for _, n := range slices.Sorted(maps.Keys(ceilings)) {
		cr := ceilings[n]
		cr.CallsPerSec = median(cr.PerRound)
		rep.Ceiling = append(rep.Ceiling, *cr)
	}
	for _, c := range cells {
		for i, acc := range rows[c] {
			row := acc.row(subjects[i].Name, c.workers)
			if ce, ok := rep.ceiling(c.workers); ok && ce.CycleCeiling() > 0 {
				row.OfCeiling = row.CyclesPerSec / ce.CycleCeiling()
			}
			if c.contended {
				rep.Contended = append(rep.Contended, row)
			} else {
				rep.Uncontended = append(rep.Uncontended, row)
			}
		}
	}
	rep.Elapsed = time.Since(started)
	return rep, nil
}

func checkSubjects(subjects []subject.Subject) error {
	if len(subjects) == 0 {
		return errors.New("bench: no subjects")
	}
	seen := map[string]bool{}
	for _, s := range subjects {
		switch {
		case s.Name == "" || s.Name == "ceiling":
			return fmt.Errorf("bench: subject name %q is reserved or empty", s.Name)
		case seen[s.Name]:
			return fmt.Errorf("bench: subject %q listed twice", s.Name)
		case s.Open == nil && s.Configure == nil:
			return fmt.Errorf("bench: subject %q has no Open", s.Name)
		}
		seen[s.Name] = true
	}
	return nil
}

// rowAcc pools one subject's windows in one cell across rounds.
type rowAcc struct {
	rates    []float64
	cycles   int64
	errors   int64
	firstErr error

	contended  bool
	grants     int64
	changes    int64
	changeBase int64 // grants after each window's first
	overtakes  int64
	handoffs   *hdrhistogram.Histogram
	waits      []*hdrhistogram.Histogram
	grantsBy   []int64
}

func (a *rowAcc) add(res *windowResult, rate float64) {
	a.rates = append(a.rates, rate)
	a.cycles += res.ops
	a.errors += res.errs.n
	if a.firstErr == nil {
		a.firstErr = res.errs.first
	}
	c := res.contention
	if c == nil {
		return
	}
	if !a.contended {
		a.contended = true
		a.handoffs = newHist()
		a.waits = make([]*hdrhistogram.Histogram, len(c.waits))
		for i := range a.waits {
			a.waits[i] = newHist()
		}
		a.grantsBy = make([]int64, len(c.waits))
	}
	a.grants += c.grants
	a.changes += c.ownerChanges
	if c.grants > 1 {
		a.changeBase += c.grants - 1
	}
	a.overtakes += c.overtakes
	a.handoffs.Merge(c.handoffs)
	for i := range c.waits {
		a.waits[i].Merge(c.waits[i])
		a.grantsBy[i] += c.grantsBy[i]
	}
}

func (a *rowAcc) row(subject string, workers int) Row {
	r := Row{
		Subject:      subject,
		Workers:      workers,
		PerRound:     a.rates,
		CyclesPerSec: median(a.rates),
		Cycles:       a.cycles,
		Errors:       a.errors,
	}
	if a.firstErr != nil {
		r.FirstError = a.firstErr.Error()
	}
	if !a.contended {
		return r
	}
	c := &Contention{
		Handoffs:   a.handoffs.TotalCount(),
		HandoffP50: quantile(a.handoffs, 50),
		HandoffP99: quantile(a.handoffs, 99),
		Overtakes:  a.overtakes,
	}
	if a.changeBase > 0 {
		c.OwnerChange = float64(a.changes) / float64(a.changeBase)
	}
	var p50s []float64
	for i, h := range a.waits {
		w := WorkerWaits{Grants: a.grantsBy[i], P50: quantile(h, 50), P99: quantile(h, 99), Max: histMaxDur(h)}
		c.Workers = append(c.Workers, w)
		p50s = append(p50s, float64(w.P50))
		c.WaitP99 = max(c.WaitP99, w.P99)
		c.MaxWait = max(c.MaxWait, w.Max)
	}
	c.WaitP50 = time.Duration(median(p50s))
	r.Contention = c
	return r
}

// median of xs (0 for none); xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// redisVersion asks the server for its version ("" when it cannot).
func redisVersion(ctx context.Context, opts *redis.Options) string {
	o := *opts
	rdb := redis.NewClient(&o)
	defer rdb.Close()
	ictx, cancel := context.WithTimeout(ctx, unlockTimeout)
	defer cancel()
	info, err := rdb.InfoMap(ictx, "server").Result()
	if err != nil {
		return ""
	}
	return info["Server"]["redis_version"]
}
