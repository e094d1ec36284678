package results

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// checkerOrder is the column order of the known checkers; others follow in
// name order.
var checkerOrder = []string{
	model.CheckWellFormed,
	model.CheckLinearizable,
	model.CheckMutualExclusion,
	model.CheckFencing,
	model.CheckFairness,
	model.CheckLiveness,
	model.CheckContract,
}

// Checkers returns the names of the checkers that ran in any of sums, in
// column order: the known checkers first, in a fixed order, then any others
// by name.
func Checkers(sums []Summary) []string {
	seen := map[string]bool{}
	var extra []string
	for _, s := range sums {
		for _, r := range s.Report.Results {
			if !seen[r.Checker] {
				seen[r.Checker] = true
				if !slices.Contains(checkerOrder, r.Checker) {
					extra = append(extra, r.Checker)
				}
			}
		}
	}
	var out []string
	for _, c := range checkerOrder {
		if seen[c] {
			out = append(out, c)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// tableHeader returns the columns of the summary table.
func tableHeader(checkers []string) []string {
	h := []string{"subject", "workload", "ops ok", "fail", "info", "grants/s", "acquire p50", "p99", "max"}
	h = append(h, checkers...)
	return append(h, "verdict")
}

// tableRow returns one summary's cells; a checker that did not run is "-".
func tableRow(s Summary, checkers []string) []string {
	st := s.Stats
	row := []string{
		s.SubjectRelease(), s.Workload,
		strconv.Itoa(st.Ops.OK), strconv.Itoa(st.Ops.Fail), strconv.Itoa(st.Ops.Info),
		fmt.Sprintf("%.1f", st.GrantsPerSec),
		FormatDuration(st.Acquire.P50), FormatDuration(st.Acquire.P99), FormatDuration(st.Acquire.Max),
	}
	for _, c := range checkers {
		if r, ok := s.Report.Result(c); ok {
			row = append(row, verdictText(r.Verdict, r.Class))
		} else {
			row = append(row, "-")
		}
	}
	return append(row, verdictText(s.Report.Verdict, s.Report.Class()))
}

// verdictText is a verdict with the class of an invalid one: "invalid
// (refusal)".
func verdictText(v model.Verdict, c model.Class) string {
	if v == model.Invalid && c != "" {
		return string(v) + " (" + string(c) + ")"
	}
	return string(v)
}

// numericColumns is the number of figure columns after subject and workload.
const numericColumns = 7

// summaryTable is the table of sums: names and verdicts left-aligned,
// figures right-aligned.
func summaryTable(sums []Summary) Table {
	checkers := Checkers(sums)
	t := Table{Header: tableHeader(checkers), Right: make([]bool, 2+numericColumns)}
	for i := range numericColumns {
		t.Right[2+i] = true
	}
	for _, s := range sums {
		t.Rows = append(t.Rows, tableRow(s, checkers))
	}
	return t
}

// Render writes the summary table for a terminal: one row per subject run
// with its op counts (ok, fail, info), grants per second, acquire latency
// p50/p99/max, one column per checker with its verdict ("-" where it did not
// run) and the combined verdict.
//
// A mixed fleet's row is followed by what each implementation did.
func Render(w io.Writer, sums []Summary) error {
	t := summaryTable(sums)
	t.CenterHeader = true
	err := t.WriteBox(w)
	for _, s := range sums {
		writeParts(w, s.Subject, s.Parts, s.Stats.Handoffs.Grouped, "  ")
		writeHandoffs(w, s, "  ")
	}
	return err
}

// writeHandoffs writes, for a run whose owners shared client processes,
// how its locks passed between them: "hand-offs: 12 within a process
// (between its threads), 3 across processes".
func writeHandoffs(w io.Writer, s Summary, indent string) {
	if h := s.Stats.Handoffs; h.Grouped {
		fmt.Fprintf(w, "%s%s: hand-offs: %d within a process (between its threads), %d across processes\n", indent, s.Subject, h.Within, h.Across)
	}
}

// RenderMarkdown writes the same table as Render in GitHub Markdown.
func RenderMarkdown(w io.Writer, sums []Summary) error {
	return summaryTable(sums).WriteMarkdown(w)
}

// FormatDuration renders d compactly with at most three significant digits:
// "850ns", "12.3µs", "4.56ms", "10ms", "1.2s"; zero is "-".
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return sig3(float64(d)/1e3) + "µs"
	case d < time.Second:
		return sig3(float64(d)/1e6) + "ms"
	default:
		return sig3(d.Seconds()) + "s"
	}
}

// sig3 formats v (>= 1) with at most three significant digits, without
// trailing zeros.
func sig3(v float64) string {
	dec := 2
	switch {
	case v >= 100:
		dec = 0
	case v >= 10:
		dec = 1
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
