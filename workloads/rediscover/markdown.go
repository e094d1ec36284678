package rediscover

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteJSON writes rep as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteMarkdown writes rep as a Markdown page: the settings, one row per
// bug and the totals.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Each release hunted for %v from seed %d (plain runs of %v), with the hunt's general scenarios and plans: no hint.\n\n",
		rep.Budget, rep.Seed, rep.RunDuration)
	b.WriteString("| bug | library | buggy → fixed | buggy release | found in | class | reproduction | fixed release |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, r := range rep.Rows {
		fmt.Fprintf(&b, "| `%s` | %s | %s → %s | %s | %s | %s | %s | %s |\n",
			r.Bug.ID, cell(r.Bug.Library), r.Bug.Buggy, r.Bug.Fixed, buggyCell(r),
			foundIn(r.Buggy), classCell(r.Buggy), reproCell(r.Buggy), fixedCell(r))
	}
	t := rep.Totals
	median := ""
	if t.Found > 0 {
		median = fmt.Sprintf(" (median %v to detection)", t.MedianDetection.Round(time.Second))
	}
	fmt.Fprintf(&b, "\n%d bugs: %d found without a hint%s, %d not found, %d not run, %d errors. "+
		"Fixed releases: %d clean, %d falsely flagged, %d flagged that still have another known bug, %d without a verdict.\n",
		t.Bugs, t.Found, median, t.NotFound, t.NotRun, t.Failed, t.FixedClean, t.FixedFlagged, t.FixedKnown, t.FixedUnjudged)
	if t.Contrasted > 0 {
		fmt.Fprintf(&b, "Of the %d finds replayed on both releases, %d failed again on the buggy release and never on the fixed one.\n", t.Contrasted, t.Separated)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// buggyCell is the buggy release's outcome, with why when not found.
func buggyCell(r Row) string {
	s := string(r.Outcome)
	if r.Outcome == Found {
		s = "**found**"
	}
	if r.Buggy.StandIn {
		s += fmt.Sprintf(" (ran %s)", r.Buggy.Subject)
	}
	if r.Why != "" {
		s += ": " + r.Why
	}
	return cell(s)
}

// foundIn is the time to the first detection and the run that made it.
func foundIn(h Hunted) string {
	if h.Find == nil {
		return "–"
	}
	return fmt.Sprintf("%v (run %d)", h.Find.Detection.Round(time.Second), h.Find.Run)
}

func classCell(h Hunted) string {
	if h.Find == nil {
		return "–"
	}
	return string(h.Find.Class) + reproducedNote(*h.Find)
}

// reproducedNote says whether f failed again while it was shrunk.
func reproducedNote(f Finding) string {
	if f.Reproduced {
		return ", failed again when shrunk"
	}
	return ", seen once (not reproduced when shrunk)"
}

func reproCell(h Hunted) string {
	if h.Find == nil {
		return "–"
	}
	return "`" + strings.ReplaceAll(h.Find.Command, "|", `\|`) + "`"
}

// fixedCell is the fixed release's outcome: clean over how many runs, or
// what flagged it.
func fixedCell(r Row) string {
	f := r.Fixed
	s := string(r.FixedOutcome)
	switch r.FixedOutcome {
	case Clean:
		s = fmt.Sprintf("clean (%d runs)", f.Runs)
	case Flagged:
		s = fmt.Sprintf("**FLAGGED** in run %d: %s%s (%s)", f.Find.Run, f.Find.Why, reproducedNote(*f.Find), f.Find.Command)
	case FlaggedKnown:
		s = fmt.Sprintf("flagged in run %d, and still has %s: %s (%s)", f.Find.Run, strings.Join(r.Bug.KnownInFixed, "; "), f.Find.Why, f.Find.Command)
	case FixedNotRun:
		s += ": " + f.NotRun
	case FixedFailed:
		s += ": " + f.Err
	}
	if f.StandIn {
		s += fmt.Sprintf(" (ran %s)", f.Subject)
	}
	return cell(s + contrastNote(r.Contrast))
}

// contrastNote is what the buggy find's plan did on both releases.
func contrastNote(c *Contrast) string {
	if c == nil {
		return ""
	}
	s := fmt.Sprintf("; the buggy find replayed %d times on each: buggy failed %d, fixed failed %d", c.Runs, c.BuggyFailed, c.FixedFailed)
	if c.Separates() {
		s += " (**it tells them apart**)"
	}
	if c.Err != "" {
		s += " (stopped: " + c.Err + ")"
	}
	return s
}

// cell makes s fit in a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
