package results

import (
	"fmt"
	"io"
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
	t := Table{Header: header}
	for _, row := range r.Rows {
		line := []string{row.Scenario, row.Subject, expectedText(row)}
		for _, c := range row.Cells {
			line = append(line, cellText(c))
		}
		for range nseeds - len(row.Cells) {
			line = append(line, "")
		}
		t.Rows = append(t.Rows, append(line, rateText(row), statusText(row)))
	}
	if markdown {
		return t.WriteMarkdown(w)
	}
	return t.WriteBox(w)
}
