package bench

import (
	"bytes"
	"encoding/json"
	"testing"
)

// --json prints the same tables as the terminal output, and the report.
func TestWriteTablesJSON(t *testing.T) {
	r := fakeReport()
	var b bytes.Buffer
	if err := r.WriteTablesJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc JSONTables
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.String())
	}
	want := r.tables()
	if len(doc.Tables) != len(want) || doc.Headline == "" || doc.Report == nil {
		t.Fatalf("%d tables, headline %q, report %v; want %d tables", len(doc.Tables), doc.Headline, doc.Report, len(want))
	}
	for i, tb := range want {
		got := doc.Tables[i]
		if got.Title != tb.title || len(got.Columns) != len(tb.header) || len(got.Rows) != len(tb.rows) {
			t.Errorf("table %d: %+v; want %q with %d columns, %d rows", i, got, tb.title, len(tb.header), len(tb.rows))
		}
	}
}
