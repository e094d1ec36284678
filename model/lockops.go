package model

// lockOps are a history's lock ops (every kind but Section) grouped by
// lock in one pass, each lock's in history order: what the per-lock
// checkers read, instead of scanning the whole history once per lock
// (64 locks of a 10M-op history would be 640M ops read).
type lockOps struct {
	names []string // sorted
	ops   map[string][]*Op
}

func groupLockOps(h *History) *lockOps {
	ix := indexLocks(h)
	g := &lockOps{names: ix.locks, ops: make(map[string][]*Op, len(ix.locks))}
	for l, idx := range ix.byLock {
		ops := make([]*Op, len(idx))
		for k, i := range idx {
			ops[k] = &h.Ops[i]
		}
		g.ops[l] = ops
	}
	return g
}
