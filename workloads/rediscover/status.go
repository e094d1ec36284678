package rediscover

import (
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// Status is where a catalog bug stands after its row's hunts and replays,
// as the page reports it; the first three in order of strength.
type Status string

const (
	// StatusToldApart: a find with the bug's signature, whose shrunk plan
	// replayed on both releases failed with that signature on the buggy
	// one in most replays and on the fixed one in none (Contrast.TellsApart).
	StatusToldApart Status = "told apart"
	// StatusFound: a find with the bug's signature, not (yet) told apart
	// from the fix.
	StatusFound Status = "found with the signature"
	// StatusOther: finds that count, none with the bug's signature.
	StatusOther Status = "flagged for something else"
	// StatusNotFound: hunted for the whole budget, nothing that counts.
	StatusNotFound Status = "not found"
	// StatusNotProducible: lockcheck cannot produce the trigger (Bug.Missing).
	StatusNotProducible Status = "not producible"
	// StatusOpen: no release has fixed the bug (Bug.Open).
	StatusOpen   Status = "open"
	StatusNotRun Status = "not run"
	StatusFailed Status = "error"
)

// Statuses are the statuses in the page's order.
var Statuses = []Status{StatusToldApart, StatusFound, StatusOther, StatusNotFound, StatusNotProducible, StatusOpen, StatusNotRun, StatusFailed}

// Status is where r's bug stands: open and not producible first (they
// cannot be told apart), then by its buggy release's outcome and replays.
func (r Row) Status() Status {
	switch {
	case r.Bug.Open():
		return StatusOpen
	case !r.Bug.Producible():
		return StatusNotProducible
	case r.Outcome == Found && r.Contrast.TellsApart():
		return StatusToldApart
	case r.Outcome == Found:
		return StatusFound
	case r.Outcome == OtherFind:
		return StatusOther
	case r.Outcome == NotRun:
		return StatusNotRun
	case r.Outcome == Failed:
		return StatusFailed
	}
	return StatusNotFound
}

// sigList renders signatures for a cell or a message.
func sigList(ss []model.Signature) string {
	if len(ss) == 0 {
		return "no signature"
	}
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = "`" + s.String() + "`"
	}
	return strings.Join(parts, ", ")
}
