package bench

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"
)

// csvHeader is the header of WriteCSV; one line per row of every table.
var csvHeader = []string{
	"started", "mode", "rounds", "window_ms", "lease_ms", "cpus", "cpu", "redis",
	"kind", "subject", "workers", "cycles_per_s", "cycles_per_s_rounds", "of_ceiling", "cycles", "errors",
	"owner_change", "handoffs", "handoff_p50_ms", "handoff_p99_ms", "wait_p50_ms", "wait_p99_ms", "max_wait_ms",
	"min_worker_grants", "overtakes",
}

// WriteCSV writes one line per ceiling, uncontended and contended row
// (kind = ceiling, uncontended, contended) with the run's description on
// every line, so files of several runs concatenate into one data set. For
// ceiling lines cycles_per_s is the cycle ceiling (calls/s / 2).
func (r *Report) WriteCSV(w io.Writer, header bool) error {
	cw := csv.NewWriter(w)
	if header {
		if err := cw.Write(csvHeader); err != nil {
			return err
		}
	}
	run := []string{
		r.Started.Format(time.RFC3339), r.Mode, strconv.Itoa(r.Rounds), fmsf(r.Window), fmsf(r.Lease),
		strconv.Itoa(r.Machine.CPUs), r.Machine.CPU, r.Machine.RedisVersion,
	}
	line := func(kind, subject string, workers int, rate float64, rounds []float64, of float64, cycles, errs int64, c *Contention) []string {
		l := append(append([]string{}, run...), kind, subject, strconv.Itoa(workers), ff(rate), joinf(rounds), ff(of),
			strconv.FormatInt(cycles, 10), strconv.FormatInt(errs, 10))
		if c == nil {
			return append(l, "", "", "", "", "", "", "", "", "")
		}
		minGrants := int64(-1)
		for _, w := range c.Workers {
			if minGrants < 0 || w.Grants < minGrants {
				minGrants = w.Grants
			}
		}
		return append(l, ff(c.OwnerChange), strconv.FormatInt(c.Handoffs, 10), fmsf(c.HandoffP50), fmsf(c.HandoffP99),
			fmsf(c.WaitP50), fmsf(c.WaitP99), fmsf(c.MaxWait), strconv.FormatInt(minGrants, 10), strconv.FormatInt(c.Overtakes, 10))
	}
	for _, c := range r.Ceiling {
		halves := make([]float64, len(c.PerRound))
		for i, x := range c.PerRound {
			halves[i] = x / 2
		}
		if err := cw.Write(line("ceiling", "ceiling", c.Workers, c.CycleCeiling(), halves, 1, 0, c.Errors, nil)); err != nil {
			return err
		}
	}
	for _, row := range r.Uncontended {
		if err := cw.Write(line("uncontended", row.Subject, row.Workers, row.CyclesPerSec, row.PerRound, row.OfCeiling, row.Cycles, row.Errors, nil)); err != nil {
			return err
		}
	}
	for _, row := range r.Contended {
		if err := cw.Write(line("contended", row.Subject, row.Workers, row.CyclesPerSec, row.PerRound, row.OfCeiling, row.Cycles, row.Errors, row.Contention)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func ff(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func fmsf(d time.Duration) string { return ff(float64(d) / float64(time.Millisecond)) }

func joinf(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(s, ";")
}
