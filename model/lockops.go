package model

import "sort"

// lockOps are a history's lock ops (every kind but Section) grouped by
// lock in one pass, each lock's in history order: what the per-lock
// checkers read, instead of scanning the whole history once per lock
// (64 locks of a 10M-op history would be 640M ops read).
type lockOps struct {
	names []string // sorted
	ops   map[string][]*Op
}

func groupLockOps(h *History) *lockOps {
	g := &lockOps{ops: map[string][]*Op{}}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == Section {
			continue
		}
		if _, ok := g.ops[o.Lock]; !ok {
			g.names = append(g.names, o.Lock)
		}
		g.ops[o.Lock] = append(g.ops[o.Lock], o)
	}
	sort.Strings(g.names)
	return g
}
