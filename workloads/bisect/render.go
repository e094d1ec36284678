package bisect

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes res as a table: a headline, one row per release
// visited or skipped (oldest first), then the boundary with its counts and
// P value, or why none was named, and the command that reruns it.
func WriteTable(w io.Writer, res *Result) error {
	var b strings.Builder
	by := ""
	if res.Rate {
		by = ", classed by rate against the good release"
	}
	fmt.Fprintf(&b, "bisect %s: good %s, bad %s, %d replays a release%s; %d of %d releases visited\n",
		res.Subject, res.Good, res.Bad, res.Replays, by, res.Visits, len(res.Releases))
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RELEASE\tSTATE\tSHOWN\tNOTE")
	for _, r := range res.Releases {
		if r.State == "" {
			continue
		}
		shown := "-"
		if r.Runs > 0 {
			shown = fmt.Sprintf("%d/%d", r.Hits, r.Runs)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Name, r.State, shown, note(r))
	}
	tw.Flush()
	b.WriteString(Conclusion(res) + "\n")
	if res.Command != "" {
		fmt.Fprintf(&b, "rerun: %s\n", res.Command)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// note is a release's NOTE column: why it was skipped, or how a widened
// one was decided.
func note(r Release) string {
	switch {
	case r.Why != "":
		return r.Why
	case r.Widened && r.Against != "":
		return fmt.Sprintf("flaky on %d, widened to %d: P %.3g against %s", r.Runs/2, r.Runs, r.P, r.Against)
	case r.Widened:
		return fmt.Sprintf("flaky on %d, widened to %d: not told from either rate", r.Runs/2, r.Runs)
	case r.Against != "":
		return fmt.Sprintf("P %.3g against %s", r.P, r.Against)
	}
	return ""
}

// Conclusion is the bisection's answer in one line: the boundary with its
// counts and P value, or why none was named.
func Conclusion(res *Result) string {
	if !res.Found() {
		return "no boundary: " + res.Why
	}
	has, clean := res.release(res.FirstHas), res.release(res.LastClean)
	s := fmt.Sprintf("first release with the find: %s (%d of %d replays); last without: %s (%d of %d); P = %.3g (Fisher's exact test, one-sided)",
		has.Name, has.Hits, has.Runs, clean.Name, clean.Hits, clean.Runs, res.P)
	if len(res.Untested) > 0 {
		s += fmt.Sprintf("; untested between them: %s (the find came in with one of them or with %s)", strings.Join(res.Untested, ", "), has.Name)
	}
	return s
}

func (r *Result) release(name string) Release {
	for _, x := range r.Releases {
		if x.Name == name {
			return x
		}
	}
	return Release{Name: name}
}

// WriteJSON writes res as indented JSON.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}
