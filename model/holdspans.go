package model

import "sort"

// HoldSpan is one hold as the checkers reconstruct it (see Holds): one
// process's belief that it held one lock.
type HoldSpan struct {
	Lock    string
	Process int
	// Start is the return of the acquire that took the process's count on
	// the lock from 0 to 1 (the grant).
	Start int64
	// End is the call of the op that ended the belief (a release that
	// took the count back to 0 or answered "not held", an Expire, an
	// Abandon, an Info op that retired the process), or the end of the
	// history when none did.
	End int64
	// EndKind and EndOutcome are that op's kind and outcome ("" when the
	// hold lasted to the end of the history).
	EndKind    Kind
	EndOutcome Outcome
	// Shared marks a read hold of a read-write lock.
	Shared bool
}

// Released reports whether the hold ended with a release answered ok.
func (s HoldSpan) Released() bool { return s.EndKind == Release && s.EndOutcome == OK }

// Holds returns every hold of h, as the checkers reconstruct them, sorted
// by lock, then start, then process. It is linear in the ops but for
// sorting. A history whose ops hold no granted acquire has none.
func Holds(h *History) []HoldSpan {
	var out []HoldSpan
	for lock, hs := range holdsOf(h, h.horizon()) {
		for _, x := range hs {
			s := HoldSpan{Lock: lock, Process: x.grant.Process, Start: x.start(), End: x.end, Shared: x.shared}
			if x.endOp != nil {
				s.EndKind, s.EndOutcome = x.endOp.Kind, x.endOp.Outcome
			}
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Lock != b.Lock {
			return a.Lock < b.Lock
		}
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.Process < b.Process
	})
	return out
}
