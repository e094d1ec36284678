package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// JSONTable is one of the report's tables as WriteTablesJSON prints it: the
// same title, columns and cells as WriteTables, so a script reads what a
// person reads.
type JSONTable struct {
	Title   string     `json:"title"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

// JSONTables is WriteTablesJSON's document: the run's headline, its tables
// and the report they were made from (durations in nanoseconds).
type JSONTables struct {
	Headline string      `json:"headline"`
	Tables   []JSONTable `json:"tables"`
	Report   *Report     `json:"report"`
}

// WriteTablesJSON writes the tables of WriteTables as one indented JSON
// document (JSONTables).
func (r *Report) WriteTablesJSON(w io.Writer) error {
	doc := JSONTables{Headline: r.headline(), Report: r}
	for _, t := range r.tables() {
		doc.Tables = append(doc.Tables, JSONTable{Title: t.title, Columns: t.header, Rows: t.rows})
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(doc)
}

// ReadReport reads a report WriteDir wrote as latest.json.
func ReadReport(path string) (*Report, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	return &r, nil
}
