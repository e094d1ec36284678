package releases

import (
	"fmt"
	"io"
	"strings"

	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

// WritePage writes t's page: how and when it was made, the table, the
// hunts and the bugs, each bug with its source. A release not hunted is
// hunted again with DefaultBudget and DefaultSeeds.
func WritePage(w io.Writer, t Table, st Stamp) error {
	hc := HuntConfig{Budget: DefaultBudget, Seeds: DefaultSeeds}
	commit := st.Commit
	if commit == "" {
		commit = "unknown"
	}
	fmt.Fprintf(w, "# %s releases: known bugs and lockcheck's hunts\n\n", t.Library)
	fmt.Fprintf(w, "Made by `lockcheck releases %s --md results/releases/%s.md` on %s at commit %s, from results/known-bugs.json and %s's list of releases (asked %s, cached in results/releases/%s/releases.json; `--refresh` asks again).\n\n",
		t.Library, t.Library, st.Date, commit, t.Registry, t.Asked, t.Library)
	fmt.Fprintf(w, "lockcheck pins %s; the driver supports %s. The bugs counted are the catalog's for the locks of this package: %s. "+
		"A release has a bug from the first release with it (`since`, where the catalog knows it, else its last buggy release) until its fix; an open bug (no fix), from `since` on, or, without one, at the newest release known to have it, and *(may have)* past that. "+
		"*May have* counts the bugs whose first release the catalog does not know, in the releases before the one known to have them. One release, its bugs and the nearest release without them: `lockcheck releases %s@VERSION`.\n\n",
		t.Pinned, t.Supports, strings.Join(t.Subjects, ", "), t.Library)
	writeHunted(w, t, hc)
	fmt.Fprintln(w, "| release | listed | driver | known bugs | open bugs | may have | lockcheck's hunt |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range t.Rows {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Release, r.listed(), r.driver(), ids(r.Has), openCell(r.Standing), count(r.Maybe), cell(r.Hunt.Summary()))
	}
	fmt.Fprintf(w, "\n%d releases.\n\n## The bugs\n\n", len(t.Rows))
	return writeBugTable(w, t.Bugs)
}

// writeHunted says which releases lockcheck hunted, with what budget, and
// how to hunt one.
func writeHunted(w io.Writer, t Table, hc HuntConfig) {
	var hunted []string
	for _, r := range t.Rows {
		if h := r.Hunt; h != nil {
			hunted = append(hunted, fmt.Sprintf("%s (%v %s, %s, `%s`)", r.Release, h.Budget, onSeeds(h.Seeds), h.Date, h.Command))
		}
	}
	if len(hunted) == 0 {
		hunted = []string{"none"}
	}
	fmt.Fprintf(w, "Hunted by lockcheck (the hunt's general mix of plans and scenarios, from seed 1; a find counts when it goes beyond the fault or breaks with no fault): %s. "+
		"A find seen once and not reproduced when shrunk may be the machine's, not the release's: a starved client process breaks the checkers' timing bounds in any release (docs/hunt.md). "+
		"Every other release is not hunted; to hunt one: `%s`, cached in results/releases/%s/VERSION.json.\n\n",
		strings.Join(hunted, "; "), hc.Command(t.Library, "VERSION"), t.Library)
}

// writeBugTable writes a row per bug: its lock, releases, property, what
// it breaks and its sources.
func writeBugTable(w io.Writer, bugs []rediscover.Bug) error {
	if len(bugs) == 0 {
		_, err := fmt.Fprintln(w, "The catalog holds no bug of this library.")
		return err
	}
	fmt.Fprintln(w, "| bug | lock | releases | property | breaks | source |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, b := range bugs {
		var links []string
		for i, s := range b.Sources {
			links = append(links, fmt.Sprintf("[%d](%s)", i+1, s))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", b.ID, b.Subject, span(b), b.Property, cell(b.Breaks), strings.Join(links, " "))
	}
	return nil
}

// cell makes s fit a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// onSeeds is seeds in words: "on seed 1", "on each of seeds 1 to 3".
func onSeeds(seeds []int64) string {
	if len(seeds) == 1 {
		return fmt.Sprint("on seed ", seeds[0])
	}
	return fmt.Sprintf("on each of seeds %d to %d", seeds[0], seeds[len(seeds)-1])
}
