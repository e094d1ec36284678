package results

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// cellText renders one cell: "<seed>: <verdict> (<invalid checkers,
// abbreviated>; <class>)", "!"
// when not as expected; skipped and errored cells say so.
func cellText(c MatrixCell) string {
	var s string
	switch {
	case c.Skip != "":
		s = "skipped"
	case c.Error != "":
		s = "ERROR"
	default:
		s = string(c.Verdict)
		if len(c.Invalid) > 0 {
			abbr := make([]string, len(c.Invalid))
			for i, name := range c.Invalid {
				abbr[i] = model.Abbrev(name)
			}
			s += " (" + strings.Join(abbr, ",")
			if c.Class != "" {
				s += "; " + string(c.Class)
			}
			if c.Beyond {
				s += "; beyond the fault"
			} else if cv, ok := c.Checker(model.CheckAllowance); ok && cv.Verdict == model.Valid && !c.Safe {
				s += "; allowed by the fault"
			}
			s += ")"
		}
	}
	if !c.OK {
		s += " !"
	}
	return fmt.Sprintf("%d: %s", c.Seed, s)
}

// rateText is the row's detection rate (unsafe) or false positives (safe).
func rateText(r ReportRow) string {
	switch {
	case r.Skip != "" || r.Runs == 0:
		return "-"
	case r.Informational:
		return fmt.Sprintf("invalid %d/%d (informational)", r.Detected, r.Runs)
	case r.Safe:
		return fmt.Sprintf("false positives %d/%d", r.Detected, r.Runs)
	}
	return fmt.Sprintf("detected %d/%d", r.Detected, r.Runs)
}

// statusText is "yes", "NO (k/n)" or "skipped: why", plus any regression.
func statusText(r ReportRow) string {
	s := "yes"
	switch {
	case r.Skip != "":
		s = "skipped: " + r.Skip
	case !r.OK():
		s = fmt.Sprintf("NO (%d/%d)", len(r.Cells)-r.Unexpected-r.Errors, len(r.Cells))
	}
	if r.Regression != "" {
		s += "; REGRESSION: " + r.Regression
	}
	return s
}

// kind is "safe" or "unsafe".
func kind(safe bool) string {
	if safe {
		return "safe"
	}
	return "unsafe"
}

// WriteReportMarkdown writes report.md: the sources, the matrix with each
// cell linked to its run's summary.md, and every unexpected cell.
func WriteReportMarkdown(w io.Writer, r Report) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# %s\n\n%s\n\n%s\n\n", orStr(r.Title, "lockcheck nightly report"), headline(r), matrixLegend)
	if len(r.MissingShards) > 0 {
		fmt.Fprintf(bw, "**Incomplete: no output from shard(s) %s.**\n\n", strings.Join(r.MissingShards, ", "))
	}
	fmt.Fprintln(bw, "| scenario | subject | kind | expected | seeds | detection | first detection | wall | as expected |")
	fmt.Fprintln(bw, "|---|---|---|---|---|---|--:|--:|---|")
	for _, row := range r.Rows {
		var cells []string
		for _, c := range row.Cells {
			t := cellText(c)
			if c.Dir != "" {
				t = fmt.Sprintf("[%s](%s)", t, path.Join(c.Dir, "summary.md"))
			}
			cells = append(cells, t)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Scenario, row.SubjectText(), kind(row.Safe), expectedText(row),
			strings.Join(cells, "<br>"), rateText(row), FormatDuration(row.FirstDetection), FormatDuration(row.Wall), statusText(row))
	}
	writeUnexpected(bw, r)
	writeScenarios(bw, r.Scenarios)
	fmt.Fprintf(bw, "\n## Sources\n\n")
	for _, s := range r.Sources {
		fmt.Fprintf(bw, "- `%s`: %s, %d cells, started %s, %s%s\n", s.Path, orWhole(s.Shard), s.Cells, s.Started.UTC().Format(time.RFC3339), FormatDuration(s.Wall), ifStr(s.Interrupted, " (interrupted)"))
	}
	return bw.Flush()
}

// matrixLegend explains a matrix's cells.
const matrixLegend = "Cells: `<seed>: <verdict> (<checkers that said invalid>; <class>)`; `!` marks a verdict that is not the expected one.\n" +
	"Checkers: lin = linearizable, mutex = mutual exclusion on the protected register, fence = fencing tokens, fair = FIFO, live = liveness, timing = TryLock within its wait.\n" +
	"Classes: safety = two holders or a lost update; refusal = refused while free (a contract or progress problem); contract = a call overstayed its wait; fairness; liveness."

// writeScenarios lists the scenarios with their kind and description.
func writeScenarios(w io.Writer, scs []ScenarioInfo) {
	if len(scs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n## Scenarios\n\n")
	for _, sc := range scs {
		fmt.Fprintf(w, "- **%s** (%s): %s\n", sc.Name, kind(sc.Safe), sc.Doc)
	}
}

// headline summarises the report in one sentence.
func headline(r Report) string {
	cells := 0
	for _, row := range r.Rows {
		cells += len(row.Cells)
	}
	s := fmt.Sprintf("%d cells (%d scenario × subject rows) from %d source(s); %d not as expected; wall %s (longest shard), %s of runs in all.",
		cells, len(r.Rows), len(r.Sources), r.Unexpected(), FormatDuration(r.Wall), FormatDuration(r.CellTime))
	if !r.Generated.IsZero() {
		s += fmt.Sprintf(" Generated %s%s.", r.Generated.UTC().Format(time.DateOnly), AtCommit(r.Commit))
	}
	if r.Baseline != "" {
		s += fmt.Sprintf(" Compared with the baseline %s: %d regression(s).", r.Baseline, r.Regressions())
	}
	return s
}

func writeUnexpected(w io.Writer, r Report) {
	first := true
	for _, row := range r.Rows {
		for _, c := range row.Cells {
			if c.OK {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n## Not as expected\n\n")
				first = false
			}
			fmt.Fprintf(w, "- %s: %s (`%s`)\n", c.Key(), orStr(c.Error, c.Why), c.Dir)
		}
	}
	if len(r.Dropped) > 0 {
		fmt.Fprintf(w, "\n## In the baseline, not run now\n\n- %s\n", strings.Join(r.Dropped, "\n- "))
	}
}

func orWhole(shard string) string {
	if shard == "" {
		return "whole matrix"
	}
	return "shard " + shard
}

func orStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func ifStr(c bool, s string) string {
	if c {
		return s
	}
	return ""
}

// expectedText is the expectation's label; "anything" for an informational
// row (its label is "-").
func expectedText(r ReportRow) string {
	if r.Informational && r.Skip == "" {
		return "anything (informational)"
	}
	return r.Expected
}
