package bench

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

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

// matrix is the measurement in progress: every cell's windows of every
// subject, pooled across rounds, and the ceiling per worker count.
type matrix struct {
	cfg      Config
	subjects []subject.Subject
	wired    []bool // per subject: its clients go through traced Wires (Config.Wire)
	opts     *redis.Options
	runID    int64 // keeps the keys of one run apart from another's
	cells    []cell
	rows     map[cell][]*rowAcc // per cell, one per subject
	ceilings map[int]*CeilingRow
	ceilCost map[int]*ServerCost // the ceiling's server cost per worker count
	ceilOps  map[int]int64
	meter    *serverMeter
	open     opener
	notes    []string
}

// ceilingIndex stands for the ceiling among the subjects' indexes.
const ceilingIndex = -1

func newMatrix(cfg Config, subjects []subject.Subject, wired []bool, opts *redis.Options, runID int64) *matrix {
	m := &matrix{cfg: cfg, subjects: subjects, wired: wired, opts: opts, runID: runID, rows: map[cell][]*rowAcc{}, ceilings: map[int]*CeilingRow{},
		ceilCost: map[int]*ServerCost{}, ceilOps: map[int]int64{}, meter: newServerMeter(opts), open: openFleet}
	if cfg.Threads {
		m.open = openShared
	}
	for _, n := range cfg.Uncontended {
		m.cells = append(m.cells, cell{false, n})
	}
	for _, n := range cfg.Contended {
		m.cells = append(m.cells, cell{true, n})
	}
	for _, c := range m.cells {
		accs := make([]*rowAcc, len(subjects))
		for i := range accs {
			accs[i] = &rowAcc{}
		}
		m.rows[c] = accs
	}
	return m
}

// round measures one window of every subject in every cell.
func (m *matrix) round(ctx context.Context, round int) error {
	measured := map[int]bool{} // ceiling worker counts done this round
	for _, c := range m.cells {
		withCeiling := !measured[c.workers]
		measured[c.workers] = true
		for _, i := range m.order(round, withCeiling) {
			if err := m.window(ctx, round, c, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// order is the order a cell's windows run in: the subjects' indexes, led by
// the ceiling's when the cell is the first of its worker count, rotated with
// the round so that no subject always runs first.
func (m *matrix) order(round int, withCeiling bool) []int {
	order := make([]int, 0, len(m.subjects)+1)
	if withCeiling {
		order = append(order, ceilingIndex)
	}
	for i := range m.subjects {
		order = append(order, i)
	}
	k := round % len(order)
	return append(order[k:], order[:k]...)
}

// window measures subject i (or the ceiling) in cell c and pools the result.
func (m *matrix) window(ctx context.Context, round int, c cell, i int) error {
	cfg := m.cfg
	name, key := "ceiling", "ceiling"
	if i != ceilingIndex {
		name = m.subjects[i].Name
		if err := canThreads(m.subjects[i], c.workers); cfg.Threads && err != nil {
			m.note(round, fmt.Errorf("no row at %v threads for %w", c, err))
			return nil
		}
		key = strings.TrimSuffix(name, WireSuffix)
		if m.wired[i] {
			key += ":wire"
		}
	}
	prefix := fmt.Sprintf("lockcheck-bench:%d:r%d:%s:%s%d", m.runID, round, key, map[bool]string{false: "u", true: "c"}[c.contended], c.workers)
	res, err := m.measure(ctx, c, i, prefix)
	if err != nil {
		return fmt.Errorf("bench: round %d, %v, %s: %w", round+1, c, name, err)
	}
	rate := float64(res.ops) / cfg.Duration.Seconds()
	m.add(c, i, res, rate)
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, "round %d/%d  %-15s %-16s %10s/s\n", round+1, cfg.Rounds, c, name, count(rate))
	}
	return nil
}

// measure runs one window of subject i (or the ceiling) in cell c, its
// clients direct or through traced Wires (m.wired), which it stops after
// the clients closed.
func (m *matrix) measure(ctx context.Context, c cell, i int, prefix string) (_ *windowResult, err error) {
	cfg := m.cfg
	if i == ceilingIndex {
		return runCeiling(ctx, m.meter, m.opts, c.workers, cfg.Threads, cfg.Duration, prefix)
	}
	dial, err := newDialer(m.opts, m.wired[i])
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, dial.close()) }()
	if c.contended {
		return runContended(ctx, m.open, m.meter, dial, m.subjects[i], c.workers, cfg.Duration, cfg.Lease, prefix)
	}
	return runUncontended(ctx, m.open, m.meter, dial, m.subjects[i], c.workers, cfg.Duration, cfg.Lease, prefix)
}

// add pools one window's result.
func (m *matrix) add(c cell, i int, res *windowResult, rate float64) {
	if i != ceilingIndex {
		m.rows[c][i].add(res, rate)
		return
	}
	cr := m.ceilings[c.workers]
	if cr == nil {
		cr = &CeilingRow{Workers: c.workers}
		m.ceilings[c.workers] = cr
	}
	cr.PerRound = append(cr.PerRound, rate)
	cr.Errors += res.errs.n
	if res.server != nil {
		if m.ceilCost[c.workers] == nil {
			m.ceilCost[c.workers] = &ServerCost{}
		}
		m.ceilCost[c.workers].add(*res.server)
		m.ceilOps[c.workers] += res.ops
	}
}

// note keeps a cell's reason for having no row, once (from the first round).
func (m *matrix) note(round int, err error) {
	if round == 0 {
		m.notes = append(m.notes, err.Error())
	}
}

// fill adds the ceiling rows, then every cell's rows (each as a share of
// its worker count's ceiling), to rep.
func (m *matrix) fill(rep *Report) {
	rep.Threads, rep.Notes = m.cfg.Threads, m.notes
	for _, n := range slices.Sorted(maps.Keys(m.ceilings)) {
		cr := m.ceilings[n]
		cr.CallsPerSec = median(cr.PerRound)
		if cost := m.ceilCost[n]; cost != nil {
			cr.Server = *cost
			cr.ServerUsecPerCall = PerOp(cost.CPUUsec, m.ceilOps[n])
		}
		rep.Ceiling = append(rep.Ceiling, *cr)
	}
	for _, c := range m.cells {
		for i, acc := range m.rows[c] {
			if len(acc.rates) == 0 {
				continue // not measured (Threads: no owners)
			}
			row := acc.row(m.subjects[i].Name, c.workers)
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
}
