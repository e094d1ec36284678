package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Run measures subjects (see Subjects) per cfg and returns the
// report. It starts its own redis-server unless cfg.Redis is set, and leaves
// nothing running when it returns. A subject that fails to open or warm up
// fails the run; errors inside a window are counted in the report instead.
func Run(ctx context.Context, cfg Config, subjects []subject.Subject) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	subjects, wired := withWired(subjects, cfg.Wire)
	if err := checkSubjects(subjects); err != nil {
		return nil, err
	}
	started := time.Now()
	opts, stop, err := benchRedis(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer stop()
	rep := newReport(ctx, cfg, subjects, opts, started)
	m := newMatrix(cfg, subjects, wired, opts, started.UnixNano())
	for round := range cfg.Rounds {
		if err := m.round(ctx, round); err != nil {
			return nil, err
		}
	}
	m.meter.close()
	m.fill(rep)
	rep.Elapsed = time.Since(started)
	return rep, nil
}

// benchRedis returns the options of the Redis to measure on: cfg.Redis, or
// a redis-server of its own that stop stops.
func benchRedis(ctx context.Context, cfg Config) (_ *redis.Options, stop func(), _ error) {
	if cfg.Redis != nil {
		return cfg.Redis, func() {}, nil
	}
	srv, err := faults.StartServer(ctx, faults.ServerConfig{})
	if err != nil {
		return nil, nil, fmt.Errorf("bench: start redis-server: %w", err)
	}
	return srv.Options(), func() { _ = srv.Close() }, nil
}

// newReport returns the report's header: the run's settings, the machine
// and the subjects, before any measurement.
func newReport(ctx context.Context, cfg Config, subjects []subject.Subject, opts *redis.Options, started time.Time) *Report {
	rep := &Report{
		Started: started.UTC(),
		Mode:    cfg.mode(),
		Rounds:  cfg.Rounds,
		Window:  cfg.Duration,
		Lease:   cfg.Lease,
		Wire:    cfg.Wire,
		Machine: describeMachine(ctx, opts),
	}
	for _, s := range subjects {
		rep.Subjects = append(rep.Subjects, SubjectInfo{Name: s.Name, Doc: s.Doc, Fair: s.Fair})
	}
	return rep
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
	server   *ServerCost // pooled over the windows the meter measured
	metered  int64       // cycles of those windows
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
	if res.server != nil {
		if a.server == nil {
			a.server = &ServerCost{}
		}
		a.server.add(*res.server)
		a.metered += res.ops
	}
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
	if a.server != nil {
		r.Server = *a.server
		r.ServerCycles = a.metered
		r.ServerUsecPerCycle = PerOp(a.server.CPUUsec, a.metered)
		r.ScriptUsecPerCycle = PerOp(a.server.ScriptUsec(), a.metered)
		r.OfServerLimit = OfLimit(r.CyclesPerSec, ServerLimit(r.ServerUsecPerCycle))
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
	c.WaitCDF = waitCDF(a.waits)
	r.Contention = c
	return r
}

// waitCDF pools the workers' waits into one CDF at CDFQuantiles.
func waitCDF(waits []*hdrhistogram.Histogram) []WaitQuantile {
	all := newHist()
	for _, h := range waits {
		all.Merge(h)
	}
	if all.TotalCount() == 0 {
		return nil
	}
	cdf := make([]WaitQuantile, 0, len(CDFQuantiles))
	for _, q := range CDFQuantiles {
		cdf = append(cdf, WaitQuantile{Q: q, Wait: quantile(all, q)})
	}
	return cdf
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
