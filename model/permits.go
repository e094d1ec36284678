package model

import "sort"

// Kinds of the counting semaphore (Redisson RSemaphore). A history of
// semaphores uses only these, with Abandon; the lock checkers do not apply
// to it and CheckPermits does (Check dispatches on the kinds). Op.Lock
// names the semaphore, Op.N the permits.
const (
	// SemAcquire takes N permits at once: Blocking (acquire) or waiting at
	// most Wait (tryAcquire). ok: taken; fail: not taken.
	SemAcquire Kind = "sem-acquire"
	// SemRelease gives N permits back (any process may: nothing is
	// owned). ok: given; fail: definitely not.
	SemRelease Kind = "sem-release"
	// SemAdd changes the available permits by N (addPermits; N < 0
	// removes them) and so the total.
	SemAdd Kind = "sem-add"
	// SemSet is trySetPermits(N): ok: the semaphore was unset and now has
	// N permits; fail: it was already set.
	SemSet Kind = "sem-set"
)

// isPermitKind reports whether k is one of the semaphore kinds.
func isPermitKind(k Kind) bool {
	switch k {
	case SemAcquire, SemRelease, SemAdd, SemSet, PermitAcquire, PermitRelease, LatchSet, LatchCountDown, LatchAwait:
		return true
	}
	return false
}

// IsPermitsHistory reports whether h records semaphore ops (then
// CheckPermits, not the lock checkers, applies).
func IsPermitsHistory(h *History) bool {
	for i := range h.Ops {
		if isPermitKind(h.Ops[i].Kind) {
			return true
		}
	}
	return false
}

// objectOps groups the indices of h's semaphore ops (and Abandons) per
// object, each group sorted by call time; the objects are sorted.
func objectOps(h *History) (names []string, by map[string][]int) {
	by = map[string][]int{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if !isPermitKind(o.Kind) {
			continue
		}
		if _, ok := by[o.Lock]; !ok {
			names = append(names, o.Lock)
		}
		by[o.Lock] = append(by[o.Lock], i)
	}
	sort.Strings(names)
	for _, n := range names {
		ix := by[n]
		sort.SliceStable(ix, func(a, b int) bool { return h.Ops[ix[a]].Call < h.Ops[ix[b]].Call })
	}
	return names, by
}
