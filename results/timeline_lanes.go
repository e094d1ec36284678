package results

import (
	"cmp"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// laneMap places each process's ops on a lock in one lane of the lock's
// rows. A process runs one op at a time and, once retired, never appears
// again, so processes whose spans on the lock do not overlap share a lane:
// a run whose clients come and go keeps a few rows per lock.
type laneMap struct {
	lanes []timelineLane
	// lane is the lane of each (lock index, process).
	lane map[[2]int]int
}

// of is the lane of process p's ops on lock (an index into the locks).
func (m *laneMap) of(lock, p int) int { return m.lane[[2]int{lock, p}] }

// procSpan is one process's span on one lock.
type procSpan struct {
	proc        int
	first, last int64
}

// assignLanes gives every (lock, process) of h a lane: each lock's
// processes in order of their first call go to the lowest of its lanes
// that is free by then (greedy interval colouring: as few lanes as the
// most processes active at once). Lanes are numbered lock by lock.
func assignLanes(h *model.History, locks []string) *laneMap {
	lockIx := indexOf(locks)
	spans := make([]map[int]*procSpan, len(locks))
	for i := range spans {
		spans[i] = map[int]*procSpan{}
	}
	for _, o := range h.Ops {
		m := spans[lockIx[o.Lock]]
		if s := m[o.Process]; s == nil {
			m[o.Process] = &procSpan{proc: o.Process, first: o.Call, last: o.Return}
		} else {
			s.first, s.last = min(s.first, o.Call), max(s.last, o.Return)
		}
	}
	m := &laneMap{lane: map[[2]int]int{}}
	for lock, byProc := range spans {
		m.addLock(lock, byProc)
	}
	return m
}

// addLock lays out one lock's processes over new lanes.
func (m *laneMap) addLock(lock int, byProc map[int]*procSpan) {
	ps := make([]*procSpan, 0, len(byProc))
	for _, s := range byProc {
		ps = append(ps, s)
	}
	slices.SortFunc(ps, func(a, b *procSpan) int { return cmp.Or(cmp.Compare(a.first, b.first), cmp.Compare(a.proc, b.proc)) })
	base := len(m.lanes)
	var free []int64 // the last return in each of the lock's lanes so far
	for _, s := range ps {
		n := slices.IndexFunc(free, func(last int64) bool { return last < s.first })
		if n < 0 {
			n = len(free)
			free = append(free, 0)
			m.lanes = append(m.lanes, timelineLane{Lock: lock})
		}
		free[n] = s.last
		l := &m.lanes[base+n]
		l.Procs = append(l.Procs, s.proc)
		l.Spans = append(l.Spans, s.first, s.last)
		m.lane[[2]int{lock, s.proc}] = base + n
	}
}
