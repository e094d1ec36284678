package bench

import (
	"fmt"
	"io"
	"strconv"

	"github.com/lockcheck/lockcheck/results"
)

// table is one table of the report, independent of how it is rendered.
type table struct {
	title  string
	header []string
	rows   [][]string
}

// tables returns the report's tables in print order.
func (r *Report) tables() []table {
	var ts []table
	if len(r.Ceiling) > 0 {
		ts = append(ts, r.ceilingTable())
	}
	if len(r.Uncontended) > 0 {
		ts = append(ts, r.uncontendedTable())
	}
	if len(r.Contended) > 0 {
		ts = append(ts, r.contendedTable())
	}
	if len(r.Subjects) > 1 {
		ts = append(ts, r.ratioTable())
	}
	if t, ok := r.pairTable(); ok {
		ts = append(ts, t)
	}
	if t, ok := r.wireTable(); ok {
		ts = append(ts, t)
	}
	if r.measuredServer() {
		ts = append(ts, r.serverCostTable(), r.limitTable())
	}
	return ts
}

func (r *Report) ceilingTable() table {
	t := table{
		title:  "Ceiling: no-op script (EVALSHA of `return 0`), one client per worker",
		header: []string{"workers", "calls/s", "cycle ceiling/s (calls/2)"},
	}
	if r.Threads {
		t.title, t.header[0] = "Ceiling: no-op script (EVALSHA of `return 0`), all threads on one client", "threads"
	}
	for _, c := range r.Ceiling {
		t.rows = append(t.rows, []string{strconv.Itoa(c.Workers), count(c.CallsPerSec), count(c.CycleCeiling())})
	}
	return t
}

// workerCounts lists the distinct worker counts of rows, in order.
func workerCounts(rows []Row) []int {
	var ns []int
	seen := map[int]bool{}
	for _, row := range rows {
		if !seen[row.Workers] {
			seen[row.Workers] = true
			ns = append(ns, row.Workers)
		}
	}
	return ns
}

func (r *Report) workersLabel(n int) string {
	unit := "worker"
	if r.Threads {
		unit = "thread"
	}
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func (r *Report) uncontendedTable() table {
	ns := workerCounts(r.Uncontended)
	t := table{title: "Uncontended: each worker on its own lock; cycles/s (share of the cycle ceiling)", header: []string{"subject"}}
	for _, n := range ns {
		t.header = append(t.header, r.workersLabel(n))
	}
	t.header = append(t.header, "errors")
	for _, s := range r.Subjects {
		line := []string{s.Name}
		var errs int64
		for _, n := range ns {
			row, ok := r.Row(false, s.Name, n)
			if !ok {
				line = append(line, "-")
				continue
			}
			errs += row.Errors
			line = append(line, fmt.Sprintf("%s (%s)", count(row.CyclesPerSec), pct(row.OfCeiling)))
		}
		t.rows = append(t.rows, append(line, strconv.FormatInt(errs, 10)))
	}
	return t
}

func (r *Report) contendedTable() table {
	t := table{
		title: "Contended: N workers on one lock",
		header: []string{"N", "subject", "cycles/s", "of ceiling", "owner change", "hand-offs",
			"hand-off p50", "hand-off p99", "wait p50", "wait p99", "max wait", "grants/worker", "overtakes", "errors"},
	}
	for _, row := range r.Contended {
		c := row.Contention
		if c == nil {
			continue
		}
		lo, hi := int64(-1), int64(0)
		for _, w := range c.Workers {
			if lo < 0 || w.Grants < lo {
				lo = w.Grants
			}
			hi = max(hi, w.Grants)
		}
		t.rows = append(t.rows, []string{
			strconv.Itoa(row.Workers), row.Subject, count(row.CyclesPerSec), pct(row.OfCeiling),
			pct(c.OwnerChange), count(float64(c.Handoffs)), ms(c.HandoffP50), ms(c.HandoffP99),
			ms(c.WaitP50), ms(c.WaitP99), ms(c.MaxWait), fmt.Sprintf("%s–%s", count(float64(lo)), count(float64(hi))),
			count(float64(c.Overtakes)), count(float64(row.Errors)),
		})
	}
	return t
}

// ratioTable divides the first subject's cycles/s by every other subject's
// (and by the cycle ceiling), cell by cell.
func (r *Report) ratioTable() table {
	base := r.Subjects[0].Name
	t := table{title: fmt.Sprintf("Ratios: %s's cycles/s ÷ each subject's (> 1: %s is faster)", base, base), header: []string{"subject"}}
	type col struct {
		contended bool
		n         int
	}
	var cols []col
	for _, n := range workerCounts(r.Uncontended) {
		cols = append(cols, col{false, n})
		t.header = append(t.header, fmt.Sprintf("uncontended %d", n))
	}
	for _, n := range workerCounts(r.Contended) {
		cols = append(cols, col{true, n})
		t.header = append(t.header, fmt.Sprintf("contended %d", n))
	}
	rate := func(contended bool, subject string, n int) float64 {
		row, _ := r.Row(contended, subject, n)
		return row.CyclesPerSec
	}
	for _, s := range r.Subjects[1:] {
		line := []string{s.Name}
		for _, c := range cols {
			line = append(line, ratio(rate(c.contended, base, c.n), rate(c.contended, s.Name, c.n)))
		}
		t.rows = append(t.rows, line)
	}
	line := []string{"ceiling (calls/2)"}
	for _, c := range cols {
		ce, _ := r.ceiling(c.n)
		line = append(line, ratio(rate(c.contended, base, c.n), ce.CycleCeiling()))
	}
	return appendRow(t, line)
}

func appendRow(t table, line []string) table {
	t.rows = append(t.rows, line)
	return t
}

// render writes t with results.Table: boxed for terminals, or Markdown;
// figures right-aligned under centred headers.
func (t table) render(w io.Writer, markdown bool) error {
	tab := results.Table{Header: t.header, Rows: t.rows, Right: results.RightAligned(len(t.header)), CenterHeader: true}
	if markdown {
		return tab.WriteMarkdown(w)
	}
	return tab.WriteBox(w)
}

// WriteTables writes the report as tables for a terminal: a heading line,
// then the ceiling, uncontended, contended and ratio tables.
func (r *Report) WriteTables(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "%s\n\n", r.headline()); err != nil {
		return err
	}
	for _, t := range r.tables() {
		if _, err := fmt.Fprintf(w, "%s\n", t.title); err != nil {
			return err
		}
		if err := t.render(w, false); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// headline names the run: mode, rounds, machine and date.
func (r *Report) headline() string {
	lease := "watchdog"
	if r.Lease > 0 {
		lease = r.Lease.String()
	}
	m := r.Machine
	if r.Threads {
		lease += ", workers are threads of one client process"
	}
	if r.Wire {
		lease += ", each subject also through traced Wires"
	}
	return fmt.Sprintf("lockcheck bench (%s: %d rounds × %v per cell, lease %s) on %s/%s, %d CPUs %s, %s, redis %s, %s%s, took %s",
		r.Mode, r.Rounds, r.Window, lease, m.OS, m.Arch, m.CPUs, m.CPU, m.GoVersion, m.RedisVersion,
		r.Started.Format("2006-01-02 15:04 UTC"), results.AtCommit(m.Commit), r.Elapsed.Round(100_000_000))
}
