package rediscover

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// WriteJSON writes rep as indented JSON.
func WriteJSON(w io.Writer, rep *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteMarkdown writes rep as a Markdown page: the settings, the totals
// (told apart first), one table of every row in status order (Statuses,
// then the report's order), and the signatures each hunt met.
func WriteMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Each release hunted for %v from seed %d (plain runs of %v), with the hunt's general scenarios and plans: no hint. "+
		"A find counts for a bug only when one of its signatures matches the bug's (`signature` in the catalog) "+
		"and no other catalogued bug that both releases have matches it too (docs/hunt.md); "+
		"a bug is told apart from its fix when its find's shrunk plan, replayed on both releases with the same seed, "+
		"fails with that signature in most of the buggy release's replays and in none of the fixed one's (p: Fisher's exact test, one-sided). "+
		"A buggy release whose only finds with the signature are ones such a shared bug explains too is judged by its first one's replays alone, "+
		"the shared signature counted on both releases: told apart \"by its replays\" when the fixed release, which has that bug as well, stays clean.\n\n",
		rep.Budget, rep.Seed, rep.RunDuration)
	if len(rep.From) > 0 {
		fmt.Fprintf(&b, "Merged from %s, judged again against the catalog as it is now; a bug those reports do not hunt is \"not run\" "+
			"(earlier hunts, judged without signatures, are in [log/rediscovery.md](log/rediscovery.md)).\n\n", strings.Join(rep.From, ", "))
	}
	writeTotals(&b, rep.Totals)
	b.WriteString("| bug | releases | signature | status | time to find | replays: buggy / fixed (p) | fixed release | first release with it | other finds | rerun |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range ordered(rep.Rows) {
		fmt.Fprintf(&b, "| `%s` (%s) | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			r.Bug.ID, cell(r.Bug.Library), releasesCell(r.Bug), signaturesCell(r.Bug), statusCell(r),
			foundIn(r.Buggy), replaysCell(r.Contrast)+untoldNote(r.Buggy), fixedCell(r), introducedCell(r), othersCell(r), rerunCell(r.Buggy))
	}
	writeMet(&b, rep.Rows)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeTotals writes the headline: told apart, found with the
// signature, flagged for something else, then the rest.
func writeTotals(b *strings.Builder, t Totals) {
	producible := t.Bugs - t.NotProducible - t.Open
	median := ""
	if t.MedianDetection > 0 {
		median = fmt.Sprintf(" (median %v to the find)", t.MedianDetection.Round(time.Second))
	}
	fmt.Fprintf(b, "**%d of %d producible bugs told apart from their fix; %d more found with the signature%s; %d flagged for something else.** "+
		"%d not found, %d not run, %d errors; %d not producible, %d open (no fixed release). "+
		"Fixed releases: %d clean of the bug's signature, %d flagged with it, %d flagged for something else, %d without a verdict.\n\n",
		t.ToldApart, producible, t.FoundSig, median, t.OtherFind, t.NotFound, t.NotRun, t.Failed, t.NotProducible, t.Open,
		t.FixedClean, t.FixedFlagged, t.FixedOther, t.FixedUnjudged)
}

// ordered is rows sorted by status (Statuses' order), stably.
func ordered(rows []Row) []Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b Row) int {
		return slices.Index(Statuses, a.Status()) - slices.Index(Statuses, b.Status())
	})
	return out
}

// releasesCell is "buggy → fixed", or the open bug's range and issue.
func releasesCell(b Bug) string {
	from := ""
	if b.Since != "" && b.Since != b.Buggy {
		from = b.Since + " … "
	}
	if b.Open() {
		return fmt.Sprintf("%s%s, open ([upstream](%s))", from, b.Buggy, b.Upstream)
	}
	return from + b.Buggy + " → " + b.Fixed
}

// introducedCell is the first release with the bug: the bisection's
// boundary, with its counts and rerun command, or why it named none; else
// the catalog's Since; "–" when neither says.
func introducedCell(r Row) string {
	b := r.Bisect
	switch {
	case b != nil && b.Found():
		first, _ := b.Release(b.FirstHas)
		last, _ := b.Release(b.LastClean)
		s := fmt.Sprintf("**%s**, bisected from %s: %s clean (%d/%d replays), %s has it (%d/%d), p = %.3g",
			b.FirstHas, b.Good, b.LastClean, last.Hits, last.Runs, b.FirstHas, first.Hits, first.Runs, b.P)
		if len(b.Untested) > 0 {
			s += "; not classed between them: " + strings.Join(b.Untested, ", ")
		}
		return cell(s) + fmt.Sprintf(" (`%s`)", b.Command)
	case b != nil:
		return cell(fmt.Sprintf("not named by bisect from %s: %s", b.Good, b.Why)) + fmt.Sprintf(" (`%s`)", b.Command)
	case r.Bug.Since != "":
		return r.Bug.Since + " (catalog's since)"
	}
	return "–"
}

// statusCell is the row's status, with why where it says more.
func statusCell(r Row) string {
	s := string(r.Status())
	switch r.Status() {
	case StatusToldApart, StatusFound:
		s = "**" + s + "**"
	case StatusNotProducible:
		s += ": " + r.Bug.Missing
	}
	if r.Buggy.StandIn {
		s += fmt.Sprintf(" (ran %s)", r.Buggy.Subject)
	}
	if f := r.Buggy.Find; f != nil && f.SharedWith != "" && r.Status() == StatusToldApart {
		s += fmt.Sprintf(" (by its replays: its signature is also %s's, which both releases have)", f.SharedWith)
	}
	switch r.Status() {
	case StatusOther, StatusNotFound, StatusNotRun, StatusFailed:
		s += ": " + r.Why
	}
	return cell(s)
}

// foundIn is the time to the find with the bug's signature and the run
// that made it.
func foundIn(h Hunted) string {
	if h.Find == nil {
		return "–"
	}
	return fmt.Sprintf("%v (run %d%s)", h.Find.Detection.Round(time.Second), h.Find.Run, reproducedNote(*h.Find))
}

// reproducedNote says when f was seen once.
func reproducedNote(f Finding) string {
	if f.Reproduced {
		return ""
	}
	return ", seen once"
}

// untoldNote names the earlier finds with the bug's signature whose
// replays did not tell the releases apart, each with its counts ("" when
// none).
func untoldNote(h Hunted) string {
	if len(h.Untold) == 0 {
		return ""
	}
	var parts []string
	for _, f := range h.Untold {
		parts = append(parts, fmt.Sprintf("run %d: %s", f.Run, replaysCell(f.Replays)))
	}
	return cell("; hunted on past the find(s) whose replays did not tell them apart: " + strings.Join(parts, "; "))
}

// replaysCell is the replays' counts with the bug's signature, and p; and
// for replays made longer, how long, and the find's own replays' count.
func replaysCell(c *Contrast) string {
	switch {
	case c == nil:
		return "–"
	case c.Err != "":
		return cell(fmt.Sprintf("%d/%d / %d/%d, stopped: %s", c.BuggyHits, c.Runs, c.FixedHits, c.Runs, c.Err))
	}
	s := fmt.Sprintf("%d/%d / %d/%d (p = %.3g)", c.BuggyHits, c.Runs, c.FixedHits, c.Runs, c.P)
	if sh := c.Short; sh != nil {
		s += fmt.Sprintf(", each run for %v (the buggy release's replays for %v: %d/%d)", c.Duration, sh.Duration, sh.Hits, c.Runs)
	}
	return s
}

// fixedCell is the fixed release's outcome: clean over how many runs, or
// what flagged it.
func fixedCell(r Row) string {
	f := r.Fixed
	s := string(r.FixedOutcome)
	switch r.FixedOutcome {
	case Clean:
		s = fmt.Sprintf("clean (%d runs)", f.Runs)
		if n := len(f.Others); n > 0 {
			s += fmt.Sprintf(", %d find(s) of its known bugs", n)
		}
	case Flagged:
		s = fmt.Sprintf("**FLAGGED** in run %d with the bug's signature (%s)", f.Find.Run, f.Find.Command)
		if k := f.Find.Known; k != "" {
			s += fmt.Sprintf("; the run shows the signature of %s too, a bug this release has, whose signatures do not match the bug's", k)
		}
	case FlaggedOther:
		o := f.firstUnknown()
		s = fmt.Sprintf("flagged in run %d for something else: %s (%s)", o.Run, sigList(o.Signatures), o.Command)
	case FixedNotRun:
		if f.NotRun != r.Buggy.NotRun {
			s += ": " + f.NotRun
		}
	case FixedFailed:
		s += ": " + f.Err
	}
	if f.StandIn {
		s += fmt.Sprintf(" (ran %s)", f.Subject)
	}
	return cell(s)
}

// othersCell lists the buggy release's finds without the bug's
// signature, each with the catalog bug it matches and whether the fixed
// release showed the same signature: one entry per set of signatures, at
// its first run, with how many later finds had the same.
func othersCell(r Row) string {
	if len(r.Buggy.Others) == 0 {
		return "–"
	}
	fixed := map[string]bool{}
	for _, f := range r.Fixed.counted() {
		for _, s := range f.Signatures {
			fixed[s.String()] = true
		}
	}
	type entry struct {
		run, more int // its first run, and the later finds with its signatures
		text      string
	}
	var entries []*entry
	seen := map[string]*entry{}
	for _, o := range r.Buggy.Others {
		text := sigList(o.Signatures)
		if o.Known != "" {
			text += " (" + o.Known + ")"
		}
		if slices.ContainsFunc(o.Signatures, func(s model.Signature) bool { return fixed[s.String()] }) {
			text += ", the fixed release too"
		}
		if e := seen[text]; e != nil {
			e.more++
			continue
		}
		seen[text] = &entry{run: o.Run, text: text}
		entries = append(entries, seen[text])
	}
	var parts []string
	for _, e := range entries {
		more := ""
		if e.more > 0 {
			more = fmt.Sprintf(" and %d more", e.more)
		}
		parts = append(parts, fmt.Sprintf("run %d%s: %s", e.run, more, e.text))
	}
	return cell(strings.Join(parts, "; "))
}

func rerunCell(h Hunted) string {
	if h.Find == nil {
		return "–"
	}
	return "`" + strings.ReplaceAll(h.Find.Command, "|", `\|`) + "`"
}

// cell makes s fit in a Markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// signaturesCell renders a bug's signature and the others its defect
// produces: "`a`, also `b`".
func signaturesCell(b Bug) string {
	out := "`" + b.Signature.String() + "`"
	for i, a := range b.AlsoSignatures {
		if i == 0 {
			out += ", also "
		} else {
			out += ", "
		}
		out += "`" + a.String() + "`"
	}
	return out
}
