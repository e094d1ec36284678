package results

import (
	"fmt"
	"io"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteMatrixTable writes a report's matrix compactly, for a terminal
// (markdown false) or as a GitHub Markdown table: scenario, subject,
// expected, one column per seed, the detection rate (unsafe) or false
// positives (safe), and whether the row is as expected.
func WriteMatrixTable(w io.Writer, r Report, markdown bool) error {
	nseeds := 0
	for _, row := range r.Rows {
		nseeds = max(nseeds, len(row.Cells))
	}
	header := []string{"scenario", "subject", "expected"}
	for i := range nseeds {
		header = append(header, fmt.Sprintf("run %d", i+1))
	}
	header = append(header, "detection", "as expected")
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	for _, row := range r.Rows {
		line := []string{row.Scenario, row.Subject, expectedText(row)}
		for _, c := range row.Cells {
			line = append(line, cellText(c))
		}
		for range nseeds - len(row.Cells) {
			line = append(line, "")
		}
		if err := t.Append(append(line, rateText(row), statusText(row))); err != nil {
			return err
		}
	}
	return t.Render()
}
