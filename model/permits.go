package model

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

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

// judgedObjects is objectOps less the objects a lossy fault may have
// forgotten (forgotten, sorted): those whose ops, from the first call to
// the last effective deadline, overlap a window whose allowance is loss or
// a split brain (Options.allowOf). The server may have lost such an
// object's count, its holders and its permits: anything its ops show may
// follow, so no checker judges it. That is the whole of a loss's
// allowance on objects without owners; every other fault allows nothing
// beyond an info op's uncertainty and a wait inside the window.
func judgedObjects(h *History, opts Options) (names []string, by map[string][]int, forgotten []string) {
	all, by := objectOps(h)
	for _, name := range all {
		if lostIn(h, by[name], opts) {
			forgotten = append(forgotten, name)
			delete(by, name)
			continue
		}
		names = append(names, name)
	}
	return names, by, forgotten
}

// lostIn reports whether a lossy window overlaps the span of ops ix.
func lostIn(h *History, ix []int, opts Options) bool {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, i := range ix {
		lo, hi = min(lo, h.Ops[i].Call), max(hi, h.Ops[i].Return, h.Ops[i].effectiveDeadline())
	}
	horizon := h.horizon()
	for _, f := range h.Faults {
		if a := opts.allowOf(f); (a == AllowLoss || a == AllowSplit) && f.Start <= hi && f.end(horizon) >= lo {
			return true
		}
	}
	return false
}

// forgottenNote is the explanation's note on the objects judgedObjects
// left out ("" when none).
func forgottenNote(forgotten []string) string {
	if len(forgotten) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d objects not judged: a lossy fault may have forgotten them (%s)", len(forgotten), strings.Join(forgotten, ", "))
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
