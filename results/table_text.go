package results

import (
	"bufio"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is a table of text for a terminal (box drawing) or GitHub
// Markdown: the one table engine of lockcheck's reports (run summaries,
// matrices, bench). It is not a table library because a test failure and
// a run's summary.md need text, and this package stays light (locktest
// imports it). Cells are single lines; a width is a count of runes; a
// short row is padded with empty cells.
type Table struct {
	Header []string
	Rows   [][]string
	// Right right-aligns a column's cells (figures); the others are
	// left-aligned.
	Right []bool
	// CenterHeader centres the header cells of a terminal table (else
	// left-aligned, as in Markdown always).
	CenterHeader bool
}

// RightAligned returns n true flags: every column of a table of figures
// right-aligned.
func RightAligned(n int) []bool {
	r := make([]bool, n)
	for i := range r {
		r[i] = true
	}
	return r
}

// widths are the columns' widths: their widest cell, header included.
func (t Table) widths() []int {
	ws := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range row {
			if i < len(ws) {
				ws[i] = max(ws[i], utf8.RuneCountInString(c))
			}
		}
	}
	return ws
}

// pad fits s into width w: left, right or centred (the odd space on the
// right).
func pad(s string, w int, right, center bool) string {
	gap := max(w-utf8.RuneCountInString(s), 0)
	switch {
	case center:
		return strings.Repeat(" ", gap/2) + s + strings.Repeat(" ", gap-gap/2)
	case right:
		return strings.Repeat(" ", gap) + s
	}
	return s + strings.Repeat(" ", gap)
}

// line writes one row of cells between the separators, each cell padded to
// its width with a space either side.
func (t Table) line(w *bufio.Writer, cells []string, ws []int, sep [3]string, header bool) {
	w.WriteString(sep[0])
	for i, width := range ws {
		c := ""
		if i < len(cells) {
			c = cells[i]
		}
		if i > 0 {
			w.WriteString(sep[1])
		}
		right := !header && i < len(t.Right) && t.Right[i]
		w.WriteString(" " + pad(c, width, right, header && t.CenterHeader) + " ")
	}
	w.WriteString(sep[2] + "\n")
}

// rule writes a border of the box: left, the columns' dashes joined by
// mid, right.
func rule(w *bufio.Writer, ws []int, left, mid, right string) {
	parts := make([]string, len(ws))
	for i, width := range ws {
		parts[i] = strings.Repeat("─", width+2)
	}
	w.WriteString(left + strings.Join(parts, mid) + right + "\n")
}

// WriteBox writes t for a terminal, boxed.
func (t Table) WriteBox(out io.Writer) error {
	w, ws := bufio.NewWriter(out), t.widths()
	bar := [3]string{"│", "│", "│"}
	rule(w, ws, "┌", "┬", "┐")
	t.line(w, t.Header, ws, bar, true)
	rule(w, ws, "├", "┼", "┤")
	for _, row := range t.Rows {
		t.line(w, row, ws, bar, false)
	}
	rule(w, ws, "└", "┴", "┘")
	return w.Flush()
}

// WriteMarkdown writes t as a GitHub Markdown table, padded to line up in
// plain text too.
func (t Table) WriteMarkdown(out io.Writer) error {
	w, ws := bufio.NewWriter(out), t.widths()
	bar := [3]string{"|", "|", "|"}
	md := t
	md.CenterHeader = false
	md.line(w, t.Header, ws, bar, true)
	w.WriteString("|")
	for i, width := range ws {
		if i < len(t.Right) && t.Right[i] {
			w.WriteString(strings.Repeat("-", width+1) + ":|")
		} else {
			w.WriteString(":" + strings.Repeat("-", width+1) + "|")
		}
	}
	w.WriteString("\n")
	for _, row := range t.Rows {
		md.line(w, row, ws, bar, false)
	}
	return w.Flush()
}
