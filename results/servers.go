package results

import (
	"regexp"
	"slices"
	"strings"
)

// cellID names a cell among the cells of several servers: its Key, and
// its server when it has one.
func cellID(c MatrixCell) string { return c.Key() + "\x00" + c.Server }

// rowID names a report row: scenario, subject and server.
func rowID(c MatrixCell) string { return c.Scenario + "\x00" + c.Subject + "\x00" + c.Server }

// ServerLabel is a server record (MatrixFile.Server, "valkey-8.1
// (valkey-server 8.1.8), backend process") as a column shows it:
// "valkey-8.1", with the backend when it is not the process one
// ("valkey-8.1 container"). "" stays "".
func ServerLabel(record string) string {
	name, _, _ := strings.Cut(record, " (")
	if i := strings.LastIndex(record, ", backend "); i >= 0 {
		if b := record[i+len(", backend "):]; b != "process" {
			name += " " + b
		}
	}
	return strings.TrimSpace(name)
}

// ServerSlug is a label as a path element: "valkey-8.1 container" is
// "valkey-8.1-container"; "" stays "".
func ServerSlug(label string) string {
	return slugRE.ReplaceAllString(label, "-")
}

var slugRE = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// reportServers are the labels of the servers rep's cells ran on, sorted;
// cells that record none are not counted.
func reportServers(rep Report) []string {
	var out []string
	for _, row := range rep.Rows {
		for _, c := range row.Cells {
			if l := ServerLabel(c.Server); l != "" && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// oneServerRows clears the rows' Server when they cover at most one: the
// headline names it, and a report of one server reads as before the axis.
func oneServerRows(rep *Report) {
	if len(reportServers(*rep)) > 1 {
		return
	}
	for i := range rep.Rows {
		rep.Rows[i].Server = ""
	}
}

// SubjectText is the row's subject, and its server when the report covers
// several ("redisson on valkey-8.1").
func (r ReportRow) SubjectText() string {
	if r.Server == "" {
		return r.Subject
	}
	return r.Subject + " on " + ServerLabel(r.Server)
}
