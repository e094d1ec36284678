package rediscover

import (
	"fmt"
	"slices"
	"time"
)

// Outcome is what the hunt of a bug's buggy release came to.
type Outcome string

const (
	Found    Outcome = "found"
	NotFound Outcome = "not found"
	NotRun   Outcome = "not run"
	Failed   Outcome = "error"
)

// FixedOutcome is what the hunt of a bug's fixed release came to.
type FixedOutcome string

const (
	// Clean: the whole budget, and no find that counts.
	Clean FixedOutcome = "clean"
	// Flagged: a find that counts in the fixed release, a false flag
	// (or a bug the catalog misplaces).
	Flagged FixedOutcome = "FLAGGED"
	// FlaggedKnown: a find that counts in a fixed release that still has
	// another known bug (Bug.KnownInFixed): no false flag, but no clean
	// verdict either; its find says which.
	FlaggedKnown FixedOutcome = "flagged, has a known bug"
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
}

// judge sets the row's outcomes from its hunts.
func (r *Row) judge() {
	b := r.Buggy
	switch {
	case b.NotRun != "":
		r.Outcome, r.Why = NotRun, b.NotRun
	case b.Find != nil && r.Bug.Missing != "":
		r.Outcome, r.Why = NotFound, r.whyNotThisBug()
	case b.Find != nil:
		r.Outcome = Found
	case b.Err != "":
		r.Outcome, r.Why = Failed, b.Err
	default:
		r.Outcome, r.Why = NotFound, r.whyNotFound()
	}
	f := r.Fixed
	switch {
	case f.NotRun != "":
		r.FixedOutcome = FixedNotRun
	case f.Find != nil && len(r.Bug.KnownInFixed) > 0:
		r.FixedOutcome = FlaggedKnown
	case f.Find != nil:
		r.FixedOutcome = Flagged
	case f.Err != "":
		r.FixedOutcome = FixedFailed
	case f.Interrupted:
		r.FixedOutcome = FixedInterrupted
	default:
		r.FixedOutcome = Clean
	}
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
}

// Totals count the rows by outcome.
type Totals struct {
	Bugs     int `json:"bugs"`
	Found    int `json:"found"`
	NotFound int `json:"not_found"`
	NotRun   int `json:"not_run"`
	Failed   int `json:"failed"`
	// MedianDetection is the median Detection of the finds (0: none).
	MedianDetection time.Duration `json:"median_detection_ns,omitempty"`
	// FixedClean and FixedFlagged count the fixed releases hunted to the
	// end of their budget; FixedFlagged must be 0.
	FixedClean   int `json:"fixed_clean"`
	FixedFlagged int `json:"fixed_flagged"`
	// FixedKnown counts the fixed releases flagged that still have
	// another known bug (FlaggedKnown).
	FixedKnown int `json:"fixed_known"`
	// FixedUnjudged counts the fixed releases not run, failed or
	// interrupted.
	FixedUnjudged int `json:"fixed_unjudged"`
	// Contrasted counts the rows whose buggy find was replayed on both
	// releases, Separated those where it told them apart
	// (Contrast.Separates).
	Contrasted int `json:"contrasted,omitempty"`
	Separated  int `json:"separated,omitempty"`
}

// total counts rep's rows.
func (rep *Report) total() {
	t := Totals{Bugs: len(rep.Rows)}
	var detections []time.Duration
	for _, r := range rep.Rows {
		switch r.Outcome {
		case Found:
			t.Found++
			detections = append(detections, r.Buggy.Find.Detection)
		case NotFound:
			t.NotFound++
		case NotRun:
			t.NotRun++
		case Failed:
			t.Failed++
		}
		if r.Contrast != nil {
			t.Contrasted++
			if r.Contrast.Separates() {
				t.Separated++
			}
		}
		switch r.FixedOutcome {
		case Clean:
			t.FixedClean++
		case Flagged:
			t.FixedFlagged++
		case FlaggedKnown:
			t.FixedKnown++
		default:
			t.FixedUnjudged++
		}
	}
	t.MedianDetection = median(detections)
	rep.Totals = t
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
