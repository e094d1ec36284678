package model

// heldCut reports whether b's determined state has a live process holding
// the lock exclusively (the mutex's owner, a read-write lock's writer): a
// state that no retired hold is part of, so split may cut there however
// long a retired process may still hold.
//
// The guarantee, for every legal linearization of the ops before a quiet
// instant whose counts are determined with such a holder p: p's latest
// grant from a free lock made every retired hold vanish (step returns a
// fresh state; rwAcquire clears RetiredUntil and WRetiredUntil on a write
// grant), and while p holds no retirement adds one (an Info acquire of
// another process cannot take effect, and every other process holds
// nothing to retire; Invariant of lockState: Held implies RetiredUntil ==
// 0). So every such linearization ends in b.initial()'s state exactly, and
// the ops after the instant, all called after every op before it
// returned, can be checked from that state alone. A free state is not
// such a cut: which retired holds remain depends on the order.
//
// This is what keeps a long run's lock in short segments: a retired hold
// of a watchdog lease outlives a run of seconds, and without heldCut it
// would make the rest of the lock's history one segment, whose search
// porcupine pays for in O(n²) copying.
func heldCut(b cutter) bool {
	_, st, ok := b.initial()
	return ok && st.Held
}
