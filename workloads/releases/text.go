package releases

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// none is an empty cell.
const none = "-"

// listed says why r is in the table.
func (r Row) listed() string {
	var why []string
	if r.Newest {
		why = append(why, "newest of "+r.Line)
	}
	if r.Catalogued {
		why = append(why, "catalogued")
	}
	if !r.Served {
		why = append(why, "not served by the registry")
	}
	return strings.Join(why, ", ")
}

// driver says whether the driver supports r.
func (r Row) driver() string {
	switch {
	case r.Pinned:
		return "pinned"
	case r.Supported:
		return "supported"
	}
	return "outside"
}

// ids is a cell of bug IDs.
func ids(list []string) string {
	if len(list) == 0 {
		return none
	}
	return strings.Join(list, ", ")
}

// openCell is a cell of a release's open bugs: those it has, then those
// it may have, marked so.
func openCell(s Standing) string {
	list := slices.Clone(s.Open)
	for _, id := range s.OpenMaybe {
		list = append(list, id+" "+mayHave)
	}
	return ids(list)
}

// mayHave marks an open bug a release may have (OpenMaybe).
const mayHave = "(may have)"

// count is a cell of how many bugs a release may have.
func count(list []string) string {
	if len(list) == 0 {
		return none
	}
	return fmt.Sprint(len(list))
}

// header is the table's first line: the library, its registry, its pin
// and its driver's range.
func (t Table) header() string {
	return fmt.Sprintf("%s: %s (list asked %s); lockcheck pins %s; the driver supports %s", t.Library, t.Registry, t.Asked, t.Pinned, t.Supports)
}

// WriteTable prints t as text: a header, a row per release (newest first)
// and how to hunt a release as hc does.
func WriteTable(w io.Writer, t Table, hc HuntConfig) error {
	fmt.Fprintln(w, t.header())
	fmt.Fprintf(w, "known bugs of %s: %d in the catalog; may have: bugs of a later release whose start the catalog does not know\n", strings.Join(t.Subjects, ", "), len(t.Bugs))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tLISTED\tDRIVER\tKNOWN BUGS\tOPEN BUGS\tMAY HAVE\tLOCKCHECK'S HUNT")
	for _, r := range t.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Release, r.listed(), r.driver(), ids(r.Has), openCell(r.Standing), count(r.Maybe), r.Hunt.Summary())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d releases. One release: lockcheck releases %s@VERSION; hunt one: %s\n", len(t.Rows), t.Library, hc.Command(t.Library, "VERSION"))
	return err
}

// WriteAnswer prints a as text: the release, each bug it has with its
// source and what it breaks, the hunt, and the suggestion.
func WriteAnswer(w io.Writer, a Answer, hc HuntConfig) error {
	fmt.Fprintf(w, "%s@%s: %s; %s; the driver supports %s\n", a.Library, a.Release, a.served(), a.driver(), a.Supports)
	writeBugs(w, "known bugs it has", a.Has)
	writeBugs(w, "open bugs (no release fixes them)", a.Open)
	if len(a.OpenMaybe) > 0 {
		writeBugs(w, "open bugs it may have (newer than the newest release known to have them; no release fixes them)", a.OpenMaybe)
	}
	if len(a.Maybe) > 0 {
		fmt.Fprintf(w, "may have (older than the release known to have them; the catalog does not say when they began): %s\n", ids(idsOf(a.Maybe)))
	}
	if a.Hunt != nil {
		fmt.Fprintf(w, "lockcheck's hunt (%s, %s): %s\n", a.Hunt.Date, a.Hunt.Command, a.Hunt.Summary())
	} else {
		fmt.Fprintf(w, "lockcheck's hunt: not hunted (%s)\n", hc.Command(a.Library, a.Release))
	}
	var err error
	switch {
	case a.Clean():
		_, err = fmt.Fprintln(w, "it has none of the known bugs")
	case a.Suggest != "":
		_, err = fmt.Fprintf(w, "nearest release without any known bug: %s@%s\n", a.Library, a.Suggest)
	default:
		_, err = fmt.Fprintf(w, "no later release is without known bugs\n")
	}
	return err
}

// served says whether the registry serves a's release.
func (a Answer) served() string {
	if a.Served {
		return "served by " + a.Registry
	}
	return "named by the catalog, not served by " + a.Registry
}

// writeBugs prints bugs under title, each with its lock, releases, what it
// breaks and its sources.
func writeBugs(w io.Writer, title string, bugs []rediscover.Bug) {
	if len(bugs) == 0 {
		fmt.Fprintf(w, "%s: none\n", title)
		return
	}
	fmt.Fprintf(w, "%s (%d):\n", title, len(bugs))
	for _, b := range bugs {
		fmt.Fprintf(w, "  %s (%s, %s; %s): %s\n", b.ID, b.Subject, b.Property, span(b), b.Breaks)
		for _, s := range b.Sources {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

// span is a bug's releases in words.
func span(b rediscover.Bug) string {
	from := "last buggy " + b.Buggy
	if b.Open() {
		from = "newest known buggy " + b.Buggy
	}
	if b.Since != "" {
		from = "from " + b.Since + ", " + from
	}
	if b.Open() {
		return from + ", no fix (" + b.Upstream + ")"
	}
	return from + ", fixed in " + b.Fixed
}

// idsOf are bugs' IDs.
func idsOf(bugs []rediscover.Bug) []string {
	out := make([]string, len(bugs))
	for i, b := range bugs {
		out[i] = b.ID
	}
	return out
}

// writeJSONTo writes v as indented JSON.
func writeJSONTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
