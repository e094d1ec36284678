package results

import (
	"fmt"
	"html/template"
	"io"
	"path"
	"strings"
)

// WriteReportHTML writes report.html: one self-contained page (inline CSS
// and SVG, no scripts, nothing fetched from the network) with the matrix;
// every cell is a square linking to its run directory's summary.md.
func WriteReportHTML(w io.Writer, r Report) error {
	return reportPage.Execute(w, htmlReport{Report: r, Headline: headline(r)})
}

type htmlReport struct {
	Report
	Headline string
}

// cellClass names a cell's colour: ok (valid as expected), caught
// (invalid as expected), bad (not as expected), error, skip, other.
func cellClass(c MatrixCell) string {
	switch {
	case c.Skip != "":
		return "skip"
	case c.Error != "":
		return "error"
	case !c.OK:
		return "bad"
	case c.Informational:
		return "other"
	case c.Verdict == "invalid":
		return "caught"
	case c.Verdict == "valid":
		return "ok"
	}
	return "other"
}

// cellTitle is a cell's tooltip.
func cellTitle(c MatrixCell) string {
	s := cellText(c)
	if c.Why != "" && !c.OK {
		s += ": " + c.Why
	}
	if c.Error != "" {
		s += ": " + c.Error
	}
	if c.FirstDetection > 0 {
		s += "; first violation at " + FormatDuration(c.FirstDetection)
	}
	return s + "; " + FormatDuration(c.Wall)
}

// rateBar draws the row's detection (unsafe) or false-positive (safe) share
// as a 100 px bar with its fraction.
func rateBar(r ReportRow) template.HTML {
	if r.Skip != "" || r.Runs == 0 {
		return "-"
	}
	frac := float64(r.Detected) / float64(r.Runs)
	colour := "#1565c0"
	switch {
	case r.Informational:
		colour = "#9e9d24"
	case r.Safe:
		colour = "#c62828"
	}
	return template.HTML(fmt.Sprintf(`<svg width="150" height="16" role="img"><rect x="0" y="3" width="100" height="10" fill="#e0e0e0"/>`+
		`<rect x="0" y="3" width="%.0f" height="10" fill="%s"/><text x="106" y="12" font-size="11">%d/%d</text></svg>`,
		100*frac, colour, r.Detected, r.Runs))
}

var reportFuncs = template.FuncMap{
	"class":   cellClass,
	"title":   cellTitle,
	"bar":     rateBar,
	"dur":     FormatDuration,
	"kind":    kind,
	"expect":  expectedText,
	"status":  statusText,
	"summary": func(dir string) string { return path.Join(dir, "summary.md") },
	"join":    strings.Join,
	"x":       func(i int) int { return 2 + i*26 },
	"svgw":    func(n int) int { return 4 + n*26 },
	"whole":   orWhole,
}

var reportPage = template.Must(template.New("report").Funcs(reportFuncs).Parse(reportTemplate))
