package bench

import (
	"fmt"
	"strings"
)

// KindPairs pairs each of lockcheck's Go ports with the Redisson lock of the
// same kind and scripts: the pair table divides the first's cycles/s by the
// second's, cell by cell. A Redisson subject at another release
// ("redisson@3.43.0") pairs as its bare name does.
var KindPairs = [][2]string{{"reentrant", "redisson"}, {"fair", "redisson-fair"}, {"fenced", "redisson-fenced"}}

// column is one cell of the report as a table column.
type column struct {
	contended bool
	n         int
}

// columns lists the report's cells: uncontended, then contended, each by
// worker count.
func (r *Report) columns() []column {
	var cols []column
	for _, n := range workerCounts(r.Uncontended) {
		cols = append(cols, column{false, n})
	}
	for _, n := range workerCounts(r.Contended) {
		cols = append(cols, column{true, n})
	}
	return cols
}

func (r *Report) columnLabel(c column) string {
	unit := "workers"
	if r.Threads {
		unit = "threads"
	}
	kind := "uncontended"
	if c.contended {
		kind = "contended"
	}
	return fmt.Sprintf("%s %d %s", kind, c.n, unit)
}

// PairRatio is a Go port's cycles/s ÷ its Redisson peer's in one cell (0
// when either lacks the cell).
type PairRatio struct {
	Go, Peer  string
	Contended bool
	N         int
	Ratio     float64
}

// PairRatios divides each Go port's cycles/s by every measured Redisson
// subject of its kind (KindPairs), in every cell both have, in cell order.
func (r *Report) PairRatios() []PairRatio {
	var out []PairRatio
	for _, p := range KindPairs {
		for _, peer := range r.Subjects {
			if base, _, _ := strings.Cut(peer.Name, "@"); base != p[1] {
				continue
			}
			for _, c := range r.columns() {
				g, ok1 := r.Row(c.contended, p[0], c.n)
				j, ok2 := r.Row(c.contended, peer.Name, c.n)
				if !ok1 || !ok2 || j.CyclesPerSec == 0 {
					continue
				}
				out = append(out, PairRatio{Go: p[0], Peer: peer.Name, Contended: c.contended, N: c.n, Ratio: g.CyclesPerSec / j.CyclesPerSec})
			}
		}
	}
	return out
}

// pairTable shows PairRatios, one row per pair, one column per cell ("-"
// where a side lacks the cell); ok is false when no pair was measured.
func (r *Report) pairTable() (table, bool) {
	t := table{title: "Go port ÷ Redisson, same kind, same rounds (> 1: the Go port is faster)", header: []string{"pair"}}
	cols := r.columns()
	for _, c := range cols {
		t.header = append(t.header, r.columnLabel(c))
	}
	idx := map[string]int{}
	for _, pr := range r.PairRatios() {
		key := pr.Go + " ÷ " + pr.Peer
		i, ok := idx[key]
		if !ok {
			i = len(t.rows)
			idx[key] = i
			t.rows = append(t.rows, append([]string{key}, dashes(len(cols))...))
		}
		for j, c := range cols {
			if c.contended == pr.Contended && c.n == pr.N {
				t.rows[i][j+1] = fmt.Sprintf("%.2f×", pr.Ratio)
			}
		}
	}
	return t, len(t.rows) > 0
}

func dashes(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = "-"
	}
	return s
}

// measuredServer reports whether any row carries the server's own cost.
func (r *Report) measuredServer() bool {
	for _, rows := range [][]Row{r.Uncontended, r.Contended} {
		for _, row := range rows {
			if row.ServerUsecPerCycle > 0 {
				return true
			}
		}
	}
	return false
}

// serverCostTable shows the server's own microseconds per cycle in every
// cell, with the commands of a cycle in the first cell, and the no-op
// script's per call.
func (r *Report) serverCostTable() table {
	t := table{title: "Server cost per cycle: Redis's main-thread CPU µs (INFO cpu) / its scripts' execution µs (INFO commandstats)", header: []string{"subject"}}
	cols := r.columns()
	for _, c := range cols {
		t.header = append(t.header, r.columnLabel(c))
	}
	t.header = append(t.header, "commands per cycle, first cell (those scripts call included)")
	for _, s := range r.Subjects {
		line, first := []string{s.Name}, ""
		for _, c := range cols {
			row, ok := r.Row(c.contended, s.Name, c.n)
			if !ok || row.ServerUsecPerCycle == 0 {
				line = append(line, "-")
				continue
			}
			line = append(line, fmt.Sprintf("%.1f / %.1f µs", row.ServerUsecPerCycle, row.ScriptUsecPerCycle))
			if first == "" {
				first = row.Server.CallsPerOp(row.ServerCycles)
			}
		}
		t.rows = append(t.rows, append(line, first))
	}
	line := []string{"no-op script (per call)"}
	for _, c := range cols {
		ce, ok := r.ceiling(c.n)
		if !ok || ce.ServerUsecPerCall == 0 {
			line = append(line, "-")
			continue
		}
		line = append(line, fmt.Sprintf("%.1f / %.1f µs", ce.ServerUsecPerCall, PerOp(ce.Server.ScriptUsec(), ce.Server.Commands["evalsha"].Calls)))
	}
	return appendRow(t, append(line, ""))
}

// limitTable shows each cell's cycles/s as a share of its own server limit
// (the cycles/s one Redis core serves at that cell's µs per cycle) beside
// its share of the no-op ceiling.
func (r *Report) limitTable() table {
	t := table{title: "Share of the server limit: cycles/s ÷ its limit (1e6 ÷ server CPU µs per cycle), and (in brackets) ÷ the no-op cycle ceiling", header: []string{"subject"}}
	cols := r.columns()
	for _, c := range cols {
		t.header = append(t.header, r.columnLabel(c))
	}
	for _, s := range r.Subjects {
		line := []string{s.Name}
		for _, c := range cols {
			row, ok := r.Row(c.contended, s.Name, c.n)
			if !ok || row.ServerUsecPerCycle == 0 {
				line = append(line, "-")
				continue
			}
			line = append(line, fmt.Sprintf("%s of %s/s (%s)", pct(row.OfServerLimit), count(ServerLimit(row.ServerUsecPerCycle)), pct(row.OfCeiling)))
		}
		t.rows = append(t.rows, line)
	}
	return t
}
