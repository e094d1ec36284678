package model

import (
	"maps"
	"slices"
	"sort"
)

// A refusal past the lease bound met a hold the history does not show.
// The wire trace may show whose it was: the commands on the lock that
// Redis acted on in the lease before the refusal carry their owner's
// token (orphantoken.go), and the last of them that only one process sent
// is that process's hold being kept. What that process did last on the
// lock before the command says what left the hold: an acquire answered
// not granted, a call or hold that retired it, or a release answered ok.

// occupants says, for the refusals the lease bound finds on one lock,
// what left the hold that refused each (refusalMechanism).
type occupants struct {
	w      *WireTrace
	lock   string
	lease  int64
	owners map[string]tokenUse
	ends   map[int][]occupantEnd // by process, the earliest first
	free   map[int][]span        // by process, the gaps between its own calls and holds
}

// occupantEnd is one way a process's business with the lock ended: when,
// and the mechanism of an orphan it leaves ("" for a release answered ok).
type occupantEnd struct {
	at   int64
	mech string
}

// newOccupants reads the lock's holds, failed or unknown acquires
// (lockAcquires), releases (lockReleases) and tokens (tokenOwners) once,
// for every refusal on it, up to horizon.
func newOccupants(lock string, holds []*hold, acqs, rels []*Op, owners func() map[string]tokenUse, opts Options, horizon int64) *occupants {
	oc := &occupants{w: opts.Wire, lock: lock, lease: opts.watchdogLease(), ends: map[int][]occupantEnd{}, free: map[int][]span{}}
	if oc.w == nil {
		return oc
	}
	oc.owners = owners()
	calls := append(slices.Clone(acqs), rels...)
	for _, u := range oc.owners {
		for q := range u.procs {
			if _, done := oc.free[q]; !done {
				oc.free[q] = gaps(busyOf(holds, calls, horizon, func(p int) bool { return p == q }))
			}
		}
	}
	for _, r := range retiredOn(holds, acqs, opts) {
		oc.ends[r.op.Process] = append(oc.ends[r.op.Process], occupantEnd{r.last, r.mechanism()})
	}
	for _, h := range holds {
		if h.releasedOK() {
			oc.ends[h.grant.Process] = append(oc.ends[h.grant.Process], occupantEnd{h.endOp.Return, ""})
		}
	}
	for p := range oc.ends {
		slices.SortStableFunc(oc.ends[p], func(a, b occupantEnd) int { return compare(a.at, b.at) })
	}
	return oc
}

// refusalMechanism says what left the hold that refused o: the mechanism
// of the last thing its keeper did on the lock before the keeper's last
// command in the lease before o's return (a command acted on, carrying a
// token only the keeper sent, outside the keeper's own calls and holds);
// "" when that was a release answered ok.
// known is false when the trace shows no such command, or the keeper had
// ended nothing before it.
func (oc *occupants) refusalMechanism(o Op) (mech string, known bool) {
	if oc.w == nil {
		return "", false
	}
	keeper, at := -1, int64(-1)
	for _, c := range slices.Sorted(maps.Keys(oc.w.conns)) {
		evs := oc.w.conns[c] // in time order
		from := sort.Search(len(evs), func(i int) bool { return evs[i].Call >= o.Return-oc.lease })
		for _, e := range evs[from:] {
			if e.Call >= o.Return {
				break
			}
			if e.Kind != WireCmd || e.Call <= at || !acted(e.Reply) || !namesLock(e.Args, oc.lock) {
				continue
			}
			if q, ok := oc.soleSender(e, c); ok {
				keeper, at = q, e.Call
			}
		}
	}
	for _, end := range oc.ends[keeper] {
		if end.at < at {
			mech, known = end.mech, true
		}
	}
	return mech, known
}

// soleSender returns the process whose token e, a command of client c,
// carries, when only that process, on c, sent it, outside its own calls
// and holds on the lock (a waiter's own attempt, answered with the time
// left, keeps nothing).
func (oc *occupants) soleSender(e WireEvent, c int) (int, bool) {
	for _, s := range commandTokens(e, oc.lock) {
		if u, ok := oc.owners[s]; ok && len(u.procs) == 1 && u.clients[c] {
			for q := range u.procs {
				return q, inSpans(e.Call, oc.free[q])
			}
		}
	}
	return 0, false
}
