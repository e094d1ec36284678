package model

import "slices"

// Handoffs counts how locks passed between owners: each grant of a lock to
// another owner than the one it was granted to last is one hand-off, within
// a client process (between threads sharing one client instance) or across
// client processes. Reentrant grants are no hand-off.
type Handoffs struct {
	// Within: the lock passed between owners of one client process.
	Within int `json:"within"`
	// Across: the lock passed between owners of different client processes
	// (or of unrecorded ones: each such owner is a process of its own).
	Across int `json:"across"`
	// Grouped says the history records client processes (Op.Client) for
	// its grants: without them no hand-off can be within a process.
	Grouped bool `json:"grouped,omitempty"`
}

// CountHandoffs counts h's hand-offs: the ok acquires of each lock in the
// order they returned, compared with the grant before. An owner that was
// retired in between does not matter: the next grant to another owner is a
// hand-off all the same.
func CountHandoffs(h *History) Handoffs {
	var out Handoffs
	byLock := map[string][]*Op{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Acquire || o.Outcome != OK {
			continue
		}
		byLock[o.Lock] = append(byLock[o.Lock], o)
		out.Grouped = out.Grouped || o.Client != 0
	}
	for _, grants := range byLock {
		slices.SortStableFunc(grants, func(a, b *Op) int {
			switch {
			case a.Return < b.Return:
				return -1
			case a.Return > b.Return:
				return 1
			}
			return 0
		})
		for i := 1; i < len(grants); i++ {
			prev, o := grants[i-1], grants[i]
			switch {
			case prev.Process == o.Process:
			case o.Client != 0 && o.Client == prev.Client:
				out.Within++
			default:
				out.Across++
			}
		}
	}
	return out
}
