package bench

import (
	"fmt"
	"io"
	"strconv"
)

// ServerReport is one server's report of a run over several servers.
type ServerReport struct {
	Server string // "valkey-8.1 (valkey-server 8.1.8)"
	Report *Report
}

// WriteServersTable writes the same cells of every server side by side:
// one row per kind, worker count and subject, one cycles/s column per
// server (in the order given; "-" where a server lacks the cell), as a
// terminal table or, with markdown, a Markdown one.
func WriteServersTable(w io.Writer, reps []ServerReport, markdown bool) error {
	t := table{title: "cycles/s by server (the median of each server's rounds)", header: []string{"kind", "workers", "subject"}}
	type key struct {
		kind    string
		workers int
		subject string
	}
	var order []key
	rates := map[key][]string{}
	for i, sr := range reps {
		t.header = append(t.header, sr.Server)
		for _, part := range []struct {
			kind string
			rows []Row
		}{{"uncontended", sr.Report.Uncontended}, {"contended", sr.Report.Contended}} {
			for _, row := range part.rows {
				k := key{part.kind, row.Workers, row.Subject}
				if _, ok := rates[k]; !ok {
					order = append(order, k)
					rates[k] = make([]string, len(reps))
					for j := range rates[k] {
						rates[k][j] = "-"
					}
				}
				rates[k][i] = count(row.CyclesPerSec)
			}
		}
	}
	for _, k := range order {
		t.rows = append(t.rows, append([]string{k.kind, strconv.Itoa(k.workers), k.subject}, rates[k]...))
	}
	if _, err := fmt.Fprintf(w, "%s\n", t.title); err != nil {
		return err
	}
	return t.render(w, markdown)
}
