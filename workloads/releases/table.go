package releases

import (
	"maps"
	"slices"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Row is one release of the table.
type Row struct {
	Release string `json:"release"`
	// Line is its minor line ("3.43"); Newest says it is the newest
	// stable patch of that line the registry serves.
	Line   string `json:"line"`
	Newest bool   `json:"newest_of_line,omitempty"`
	// Catalogued says the catalog names it (a bug's since, buggy or
	// fixed release); Served that the registry lists it.
	Catalogued bool `json:"catalogued,omitempty"`
	Served     bool `json:"served"`
	// Supported says the driver supports it; Pinned that the bare
	// subject runs it.
	Supported bool `json:"supported"`
	Pinned    bool `json:"pinned,omitempty"`
	Standing
	// Hunt is lockcheck's cached hunt of it; nil: not hunted.
	Hunt *Hunt `json:"hunt,omitempty"`
}

// Table is a library's releases, newest first, with the bugs of each.
type Table struct {
	Library  string `json:"library"`
	Registry string `json:"registry"`
	Pinned   string `json:"pinned"`
	Supports string `json:"supports"`
	// Subjects are the locks whose catalogued bugs count (Library.Subjects).
	Subjects []string `json:"subjects"`
	// Asked is the day the registry's list was asked.
	Asked string           `json:"asked"`
	Rows  []Row            `json:"releases"`
	Bugs  []rediscover.Bug `json:"bugs"`

	list  List             // the registry's whole list
	hunts map[string]*Hunt // the cached hunts, by release
	vs    *subject.Versions
}

// Build makes lib's table from its registry's list, the catalog's bugs of
// lib (Library.Bugs) and the cached hunts: a row for the newest stable
// patch of each minor line of the list and for every release the bugs
// name, newest first.
func Build(lib Library, list List, bugs []rediscover.Bug, hunts map[string]*Hunt) Table {
	vs := lib.Versions
	t := Table{Library: lib.Name, Registry: vs.Registry, Pinned: vs.Pinned, Supports: vs.Supports.String(),
		Subjects: lib.Subjects, Asked: list.Asked, Bugs: bugs, list: list, hunts: hunts, vs: vs}
	newest := newestOfLines(list.Releases)
	named := cataloguedReleases(bugs)
	picked := append(slices.Collect(maps.Keys(newest)), named...)
	slices.SortFunc(picked, func(a, b string) int { return subject.CompareReleases(b, a) })
	for _, v := range slices.Compact(picked) {
		r := t.row(v)
		r.Newest, r.Catalogued = newest[v], slices.Contains(named, v)
		t.Rows = append(t.Rows, r)
	}
	return t
}

// row is release v's row, but for Newest and Catalogued.
func (t Table) row(v string) Row {
	return Row{
		Release: v, Line: line(v), Served: slices.Contains(t.list.Releases, v), Supported: t.vs.Supported(v),
		Pinned: v == t.vs.Pinned, Standing: standing(t.Bugs, v), Hunt: t.hunts[v],
	}
}

// newestOfLines is the newest stable release of each minor line of vs.
func newestOfLines(vs []string) map[string]bool {
	best := map[string]string{}
	for _, v := range vs {
		r, err := subject.ParseRelease(v)
		if err != nil || !r.Stable() {
			continue
		}
		if b, ok := best[r.Line()]; !ok || subject.CompareReleases(v, b) > 0 {
			best[r.Line()] = v
		}
	}
	out := map[string]bool{}
	for _, v := range best {
		out[v] = true
	}
	return out
}

// cataloguedReleases are the releases bugs name: each one's since, buggy
// and fixed release.
func cataloguedReleases(bugs []rediscover.Bug) []string {
	var out []string
	for _, b := range bugs {
		for _, v := range []string{b.Since, b.Buggy, b.Fixed} {
			if v != "" && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out
}

// line is v's minor line ("" for no release number).
func line(v string) string {
	r, err := subject.ParseRelease(v)
	if err != nil {
		return ""
	}
	return r.Line()
}

// Row returns the row of release v.
func (t Table) Row(v string) (Row, bool) {
	i := slices.IndexFunc(t.Rows, func(r Row) bool { return r.Release == v })
	if i < 0 {
		return Row{}, false
	}
	return t.Rows[i], true
}

// Bug returns the bug called id.
func (t Table) Bug(id string) rediscover.Bug {
	i := slices.IndexFunc(t.Bugs, func(b rediscover.Bug) bool { return b.ID == id })
	return t.Bugs[i]
}

// setHunt puts h in t: its hunts and the row of its release.
func (t *Table) setHunt(v string, h *Hunt) {
	if t.hunts == nil {
		t.hunts = map[string]*Hunt{}
	}
	t.hunts[v] = h
	for i := range t.Rows {
		if t.Rows[i].Release == v {
			t.Rows[i].Hunt = h
		}
	}
}
