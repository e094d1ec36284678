package bench

import (
	"fmt"
	"strings"
)

// finding is one paragraph of the fair vs non-fair page: a title and text
// made from the report's figures (no sentence states a result the figures
// do not carry).
type finding struct {
	title, text string
}

// fairFindings are the page's paragraphs, each comparing the sides of every
// measured pair: throughput, the spread of waits, hand-offs, starvation,
// and, with both libraries measured, library vs library.
func (r *Report) fairFindings(pairs [][2]string) []finding {
	n := r.mostThreads(pairs)
	fs := []finding{
		{"Throughput", r.throughputFinding(pairs)},
		{fmt.Sprintf("Waits at %d threads", n), r.waitFinding(pairs, n)},
		{fmt.Sprintf("Hand-offs at %d threads", n), r.handoffFinding(pairs, n)},
		{fmt.Sprintf("Starvation at %d threads", n), r.starvationFinding(pairs, n)},
	}
	if len(pairs) > 1 {
		fs = append(fs, finding{"Library vs library", r.libraryFinding(pairs)})
	}
	return fs
}

// faster words a ratio a/b: "1.52× faster" or "0.66× (slower)".
func faster(a, b float64) string {
	if b == 0 || a == 0 {
		return "not comparable (a side has no cycles)"
	}
	x := a / b
	switch {
	case x >= 1.05:
		return fmt.Sprintf("%.2f× as fast", x)
	case x <= 0.95:
		return fmt.Sprintf("%.2f× as fast (slower)", x)
	}
	return fmt.Sprintf("%.2f× as fast (within 5%%)", x)
}

// throughputFinding compares each pair's contended cycles/s at every thread
// count, and uncontended at the most threads (the fair scripts' own cost).
func (r *Report) throughputFinding(pairs [][2]string) string {
	var parts []string
	for _, p := range pairs {
		var cells []string
		for _, fair := range r.contendedRows(p[1]) {
			non, ok := r.Row(true, p[0], fair.Workers)
			if !ok {
				continue
			}
			cells = append(cells, fmt.Sprintf("at %d threads %s cycles/s against %s, %s", fair.Workers, count(fair.CyclesPerSec), count(non.CyclesPerSec), faster(fair.CyclesPerSec, non.CyclesPerSec)))
		}
		s := fmt.Sprintf("On one lock, `%s` runs %s as `%s`.", p[1], strings.Join(cells, "; "), p[0])
		if ns := workerCounts(r.Uncontended); len(ns) > 0 {
			m := ns[len(ns)-1]
			fu, ok1 := r.Row(false, p[1], m)
			nu, ok2 := r.Row(false, p[0], m)
			if ok1 && ok2 {
				s += fmt.Sprintf(" Uncontended (%d threads, each its own lock) it is %s: what its longer scripts cost when nobody waits.", m, faster(fu.CyclesPerSec, nu.CyclesPerSec))
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// spread is a row's max wait over its median wait.
func spread(c *Contention) string {
	if c.WaitP50 <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f×", float64(c.MaxWait)/float64(c.WaitP50))
}

// waitFinding compares the median and the tail of the waits at n threads.
func (r *Report) waitFinding(pairs [][2]string, n int) string {
	var parts []string
	_ = fairSides(pairs, func(s string, _ int, _ bool) error {
		row, _ := r.Row(true, s, n)
		c := row.Contention
		parts = append(parts, fmt.Sprintf("`%s` waits %s at the median, %s at p99 and %s at worst (worst ÷ median %s)", s, ms(c.WaitP50), ms(c.WaitP99), ms(c.MaxWait), spread(c)))
		return nil
	})
	cmp := r.comparePairs(pairs, n, func(f, nf *Contention) bool { return f.MaxWait > nf.MaxWait }, "`%s`'s worst wait is %s than `%s`'s", "longer", "shorter")
	return strings.Join(parts, "; ") + ". " + strings.Join(cmp, ", and ") + "."
}

// comparePairs states for each pair at n threads, by format (fair side,
// word, non-fair side), whether above(fair, non-fair) holds: yes, else no.
func (r *Report) comparePairs(pairs [][2]string, n int, above func(f, nf *Contention) bool, format, yes, no string) []string {
	var out []string
	for _, p := range pairs {
		f, _ := r.Row(true, p[1], n)
		nf, _ := r.Row(true, p[0], n)
		word := no
		if above(f.Contention, nf.Contention) {
			word = yes
		}
		out = append(out, fmt.Sprintf(format, p[1], word, p[0]))
	}
	return out
}

// handoffFinding compares how often the lock passed to another thread, and
// the overtakes of waiting requests.
func (r *Report) handoffFinding(pairs [][2]string, n int) string {
	var parts []string
	_ = fairSides(pairs, func(s string, _ int, _ bool) error {
		row, _ := r.Row(true, s, n)
		c := row.Contention
		parts = append(parts, fmt.Sprintf("`%s` hands the lock to another thread in %s of grants (hand-off p50 %s), with %s overtakes of a waiting request", s, pct(c.OwnerChange), ms(c.HandoffP50), count(float64(c.Overtakes))))
		return nil
	})
	cmp := r.comparePairs(pairs, n, func(f, nf *Contention) bool { return f.OwnerChange > nf.OwnerChange }, "`%s` passes the lock on %s often than `%s`", "more", "less")
	return strings.Join(parts, "; ") + ". " + strings.Join(cmp, ", and ") + ": a thread that just unlocked is running and can take the lock again at once, unless the lock queues the others first."
}

// grantsRange is the fewest and most grants of one thread.
func grantsRange(c *Contention) (lo, hi int64) {
	lo = -1
	for _, w := range c.Workers {
		if lo < 0 || w.Grants < lo {
			lo = w.Grants
		}
		hi = max(hi, w.Grants)
	}
	return max(lo, 0), hi
}

// starvationFinding compares the fewest and most grants of one thread.
func (r *Report) starvationFinding(pairs [][2]string, n int) string {
	var parts []string
	starved := 0
	_ = fairSides(pairs, func(s string, _ int, _ bool) error {
		row, _ := r.Row(true, s, n)
		lo, hi := grantsRange(row.Contention)
		if lo == 0 {
			starved++
		}
		parts = append(parts, fmt.Sprintf("`%s`'s threads got %s–%s grants each", s, count(float64(lo)), count(float64(hi))))
		return nil
	})
	tail := "No thread went without a grant."
	if starved > 0 {
		tail = fmt.Sprintf("%d of the locks left a thread without any grant over all rounds.", starved)
	}
	return strings.Join(parts, "; ") + ". " + tail
}

// libraryFinding compares the libraries side by side, fair with fair and
// non-fair with non-fair, at every contended thread count.
func (r *Report) libraryFinding(pairs [][2]string) string {
	var parts []string
	for side, kind := range []string{"non-fair", "fair"} {
		a, b := pairs[0][side], pairs[1][side]
		var cells []string
		for _, row := range r.contendedRows(a) {
			other, ok := r.Row(true, b, row.Workers)
			if ok {
				cells = append(cells, fmt.Sprintf("%s at %d threads", faster(row.CyclesPerSec, other.CyclesPerSec), row.Workers))
			}
		}
		parts = append(parts, fmt.Sprintf("%s: `%s` is %s as `%s`", kind, a, strings.Join(cells, ", "), b))
	}
	return strings.Join(parts, "; ") + "."
}
