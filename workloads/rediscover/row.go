package rediscover

import (
	"fmt"
	"github.com/lockcheck/lockcheck/workloads/bisect"
	"slices"
	"time"
)

// Outcome is what the hunt of a bug's buggy release came to.
type Outcome string

const (
	// Found: a find with the bug's signature.
	Found Outcome = "found"
	// OtherFind: finds that count, none with the bug's signature.
	OtherFind Outcome = "flagged for something else"
	NotFound  Outcome = "not found"
	NotRun    Outcome = "not run"
	Failed    Outcome = "error"
)

// FixedOutcome is what the hunt of a bug's fixed release came to.
type FixedOutcome string

const (
	// Clean: the whole budget, and no find that counts but those of the
	// release's other known bugs (Bug.KnownInFixed), each matched by its
	// signature (Hunted.Others).
	Clean FixedOutcome = "clean"
	// Flagged: a find with the bug's own signature in the fixed release:
	// the fix did not fix it, or the catalog misplaces it.
	Flagged FixedOutcome = "FLAGGED"
	// FlaggedOther: a find that counts with a signature of no known bug
	// of the release: a false flag, or a bug the catalog lacks.
	FlaggedOther FixedOutcome = "flagged for something else"
	// FixedNotRun, FixedFailed, FixedInterrupted: no verdict.
	FixedNotRun      FixedOutcome = "not run"
	FixedFailed      FixedOutcome = "error"
	FixedInterrupted FixedOutcome = "interrupted"
)

// Row is one bug, hunted again.
type Row struct {
	Bug   Bug    `json:"bug"`
	Buggy Hunted `json:"buggy"`
	Fixed Hunted `json:"fixed"`
	// Outcome is the buggy release's; Why says why it was not found, or
	// not run.
	Outcome Outcome `json:"outcome"`
	Why     string  `json:"why,omitempty"`
	// FixedOutcome is the fixed release's.
	FixedOutcome FixedOutcome `json:"fixed_outcome"`
	// Contrast is the buggy find replayed on both releases (nil: not
	// replayed; Config.Contrast).
	Contrast *Contrast `json:"contrast,omitempty"`
	// Bisect is the bisection of the bug's find over the releases before
	// Buggy (`lockcheck bisect --bug`), attached from its committed result
	// (AttachBisections; nil: not bisected).
	Bisect *bisect.Result `json:"bisect,omitempty"`
}

// judge sets the row's outcomes from its hunts.
func (r *Row) judge() {
	b := r.Buggy
	switch {
	case b.NotRun != "":
		r.Outcome, r.Why = NotRun, b.NotRun
	case b.Find != nil && r.Bug.Missing != "":
		r.Outcome, r.Why = NotFound, r.whyNotThisBug()
	case b.Find != nil && b.Find.SharedWith != "" && !r.Contrast.TellsApart():
		r.Outcome, r.Why = OtherFind, r.whyShared()
	case b.Find != nil:
		r.Outcome, r.Why = Found, ""
	case b.Err != "":
		r.Outcome, r.Why = Failed, b.Err
	case len(b.Others) > 0:
		r.Outcome, r.Why = OtherFind, r.whyOther()
	default:
		r.Outcome, r.Why = NotFound, r.whyNotFound()
	}
	f := r.Fixed
	switch {
	case f.NotRun != "":
		r.FixedOutcome = FixedNotRun
	case f.Find != nil:
		r.FixedOutcome = Flagged
	case f.firstUnknown() != nil:
		r.FixedOutcome = FlaggedOther
	case f.Err != "":
		r.FixedOutcome = FixedFailed
	case f.Interrupted:
		r.FixedOutcome = FixedInterrupted
	default:
		r.FixedOutcome = Clean
	}
}

// whyOther says what the buggy release showed instead of the bug.
func (r *Row) whyOther() string {
	o := r.Buggy.Others[len(r.Buggy.Others)-1]
	what := "no bug the catalog knows there"
	if o.Known != "" {
		what = "the signature of " + o.Known
	}
	return fmt.Sprintf("%d find(s) without the bug's signature %s; the last in run %d: %s (%s)",
		len(r.Buggy.Others), r.Bug.Signature, o.Run, sigList(o.Signatures), what)
}

// whyShared says why a find with the bug's signature, which a bug both
// releases have shares (Finding.SharedWith), does not count: its replays
// did not tell the releases apart, or were not made.
func (r *Row) whyShared() string {
	f := r.Buggy.Find
	why := fmt.Sprintf("the find in run %d (%s) has the bug's signature %s, which %s, a bug both releases have, has too: it counts when its replays tell the releases apart",
		f.Run, sigList(f.Signatures), r.Bug.Signature, f.SharedWith)
	if c := r.Contrast; c != nil && c.Err == "" {
		return why + fmt.Sprintf(", and they did not (%d/%d on the buggy release, %d/%d on the fixed one)", c.BuggyHits, c.Runs, c.FixedHits, c.Runs)
	}
	return why + ", and it was not replayed"
}

// whyNotFound says why a buggy release that was hunted showed nothing
// that counts.
func (r *Row) whyNotFound() string {
	b := r.Buggy
	var why string
	switch {
	case b.Interrupted:
		why = fmt.Sprintf("interrupted after %d runs", b.Runs)
	case r.Bug.Missing != "":
		why = "trigger missing: " + r.Bug.Missing
	default:
		why = fmt.Sprintf("not found within the budget (%d runs)", b.Runs)
	}
	if n := len(b.Allowed); n > 0 {
		why += fmt.Sprintf("; %d find(s) %s, not counted", n, b.Allowed[0].Class)
	}
	return why
}

// whyNotThisBug says why a find in the buggy release of a bug whose
// trigger lockcheck cannot produce (Bug.Missing) is not counted: the
// release broke, but not by a trigger of this bug, so the find is some
// other bug of the release (or this one reached another way, which the
// run alone cannot tell).
func (r *Row) whyNotThisBug() string {
	f := r.Buggy.Find
	return fmt.Sprintf("trigger missing: %s; the release was flagged in run %d (%s: %s), not counted: "+
		"lockcheck cannot produce this bug's trigger, so the find is not shown to be this bug (%s)",
		r.Bug.Missing, f.Run, f.Class, f.Why, f.Command)
}

// Report is a rediscovery: its settings, its rows and their totals.
type Report struct {
	Seed        int64         `json:"seed"`
	Budget      time.Duration `json:"budget_ns"`
	RunDuration time.Duration `json:"run_duration_ns"`
	Rows        []Row         `json:"rows"`
	Totals      Totals        `json:"totals"`
	// From names the reports merged into this one (--merge; nil: none).
	From []string `json:"from,omitempty"`
}

// Totals count the rows by status (Row.Status) and the fixed releases
// by outcome.
type Totals struct {
	Bugs int `json:"bugs"`
	// ToldApart, FoundSig, OtherFind, NotFound, NotProducible, Open,
	// NotRun and Failed count the rows by Status.
	ToldApart     int `json:"told_apart"`
	FoundSig      int `json:"found_with_signature"`
	OtherFind     int `json:"other_find"`
	NotFound      int `json:"not_found"`
	NotProducible int `json:"not_producible"`
	Open          int `json:"open"`
	NotRun        int `json:"not_run"`
	Failed        int `json:"failed"`
	// MedianDetection is the median Detection of the finds with their
	// bug's signature (0: none).
	MedianDetection time.Duration `json:"median_detection_ns,omitempty"`
	// FixedClean, FixedFlagged (the bug's signature) and FixedOther (a
	// signature no known bug of the release has) count the fixed
	// releases hunted; FixedFlagged must be 0. FixedUnjudged counts those
	// not run, failed or interrupted.
	FixedClean    int `json:"fixed_clean"`
	FixedFlagged  int `json:"fixed_flagged"`
	FixedOther    int `json:"fixed_other"`
	FixedUnjudged int `json:"fixed_unjudged"`
	// Contrasted counts the rows whose buggy find was replayed on both
	// releases.
	Contrasted int `json:"contrasted,omitempty"`
}

// total counts rep's rows.
func (rep *Report) total() {
	t := Totals{Bugs: len(rep.Rows)}
	var detections []time.Duration
	for _, r := range rep.Rows {
		if r.Outcome == Found {
			detections = append(detections, r.Buggy.Find.Detection)
		}
		*t.statusCount(r.Status())++
		if r.Contrast != nil {
			t.Contrasted++
		}
		switch r.FixedOutcome {
		case Clean:
			t.FixedClean++
		case Flagged:
			t.FixedFlagged++
		case FlaggedOther:
			t.FixedOther++
		default:
			t.FixedUnjudged++
		}
	}
	t.MedianDetection = median(detections)
	rep.Totals = t
}

// statusCount is the count of status s.
func (t *Totals) statusCount(s Status) *int {
	return map[Status]*int{
		StatusToldApart: &t.ToldApart, StatusFound: &t.FoundSig, StatusOther: &t.OtherFind, StatusNotFound: &t.NotFound,
		StatusNotProducible: &t.NotProducible, StatusOpen: &t.Open, StatusNotRun: &t.NotRun, StatusFailed: &t.Failed,
	}[s]
}

// median is the median of ds (the lower middle one for an even count); 0
// for none.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
