package bench

import (
	"fmt"
	"io"

	"github.com/lockcheck/lockcheck/results/plots"
)

// WritePNG draws the report as a PNG with two panels, subjects along x and
// log-scaled y: cycles/s per cell (with the cycle ceiling as a first column),
// and, per contended cell, the hand-off p50 and the slowest worker's max wait.
func (r *Report) WritePNG(w io.Writer) error {
	names := []string{"ceiling/2"}
	for _, s := range r.Subjects {
		names = append(names, s.Name)
	}
	return plots.WritePanelsPNG(w, 1300, 560, r.throughputPanel(names), r.latencyPanel(names[1:]))
}

func (r *Report) throughputPanel(names []string) plots.Panel {
	p := plots.Panel{Title: "Lock/unlock cycles per second (median of rounds)", YLabel: "cycles/s", Names: names}
	for _, contended := range []bool{false, true} {
		rows, kind, glyph := r.Uncontended, "uncontended", plots.Circle
		if contended {
			rows, kind, glyph = r.Contended, "contended", plots.Triangle
		}
		for _, n := range workerCounts(rows) {
			s := plots.Marks{Label: fmt.Sprintf("%s, %d", kind, n), Glyph: glyph, Ys: make([]float64, len(names)), Color: len(p.Marks)}
			if ce, ok := r.ceiling(n); ok {
				s.Ys[0] = ce.CycleCeiling()
			}
			for i, name := range names[1:] {
				if row, ok := r.Row(contended, name, n); ok {
					s.Ys[i+1] = row.CyclesPerSec
				}
			}
			p.Marks = append(p.Marks, s)
		}
	}
	return p
}

func (r *Report) latencyPanel(names []string) plots.Panel {
	p := plots.Panel{Title: "Contended: hand-off p50 (●) and slowest worker's max wait (×)", YLabel: "milliseconds", Names: names}
	for _, worst := range []bool{false, true} {
		for k, n := range workerCounts(r.Contended) {
			s := plots.Marks{Label: fmt.Sprintf("hand-off p50, %d", n), Glyph: plots.Circle, Ys: make([]float64, len(names)), Color: k}
			if worst {
				s.Label, s.Glyph = fmt.Sprintf("max wait, %d", n), plots.Cross
			}
			for i, name := range names {
				row, ok := r.Row(true, name, n)
				if !ok || row.Contention == nil {
					continue
				}
				d := row.Contention.HandoffP50
				if worst {
					d = row.Contention.MaxWait
				}
				s.Ys[i] = d.Seconds() * 1000
			}
			p.Marks = append(p.Marks, s)
		}
	}
	return p
}
