package results

import (
	"bytes"
	"testing"
)

// TestTextTable: a boxed table centres its header and right-aligns its
// figures; the Markdown one says so in its rule; widths count runes, and a
// short row is padded with empty cells.
func TestTextTable(t *testing.T) {
	tab := Table{
		Header: []string{"subject", "ops", "verdict"},
		Rows:   [][]string{{"fair-µ✓", "1200", "valid"}, {"redsync", "3"}},
		Right:  []bool{false, true},
	}
	var box, md bytes.Buffer
	tab.CenterHeader = true
	if err := tab.WriteBox(&box); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	wantBox := `┌─────────┬──────┬─────────┐
│ subject │ ops  │ verdict │
├─────────┼──────┼─────────┤
│ fair-µ✓ │ 1200 │ valid   │
│ redsync │    3 │         │
└─────────┴──────┴─────────┘
`
	wantMD := `| subject | ops  | verdict |
|:--------|-----:|:--------|
| fair-µ✓ | 1200 | valid   |
| redsync |    3 |         |
`
	if box.String() != wantBox {
		t.Errorf("box:\n%s\nwant:\n%s", box.String(), wantBox)
	}
	if md.String() != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", md.String(), wantMD)
	}
}
