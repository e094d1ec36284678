package model

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// leaseBoundSlack is how long past one lease a retired hold of lease l may
// still stand: a fifth of the lease (a renewal in flight when the process
// was retired) plus 250 ms of scheduling and round trips (never more than
// half the lease, for the short leases of hand-drawn histories).
func leaseBoundSlack(l int64) int64 { return l/5 + min(int64(250*time.Millisecond), l/2) }

// leaseBound finds, on one lock, the refusals that only an ended hold could
// explain, past its end: a process that crashed or was retired (its handle
// abandoned, its renewal stopped) must leave the lock free within one lease
// (plus leaseBoundSlack) of its last request, and a release answered ok
// frees it at once; so an acquire refused while nothing else could occupy
// the lock (at no instant of its interval a live holder's possible hold,
// and not all of it covered by faults that may hold its process up:
// delayedThroughout; a fault of another client, or of a kind that delays
// nothing, excuses nothing) met a lock that kept renewing a hold nobody owns (a
// released or crashed hold renewed again), or set a lease longer than
// asked. Fair and quorum locks are not judged (a fair lock's
// dead waiters hold the queue for its own timeout; a quorum's leftover
// votes are its own matter). It runs in O(n log n) on the lock's ops.
// acqs are the lock's acquires that failed or whose outcome is unknown
// (lockAcquires).
func leaseBound(hist *History, holds []*hold, acqs []*Op, fs *faultSet, opts Options, horizon int64) []Example {
	if opts.Fair || opts.SplitVotes || len(holds) == 0 {
		return nil
	}
	lock := holds[0].grant.Lock
	bounded, open := retiredSpans(holds, acqs, opts, horizon)
	if len(bounded) == 0 {
		return nil
	}
	others := liveSpans(holds, horizon)
	freeCapped, freeOpen := gaps(append(bounded, others...)), gaps(append(open, others...))
	var bad []Example
	for _, o := range acqs {
		if o.Outcome != Fail || o.Cancelled || delayedThroughout(hist, o, horizon) {
			continue // faults that may hold its process up cover it
		}
		if freeSomewhere(o.Call, o.Return, freeOpen) || !freeThroughout(o.Call, o.Return, freeCapped) {
			continue // free without a retired hold at some instant (liveness's matter), or maybe held
		}
		bad = append(bad, Example{Lock: lock, Ops: []Op{*o}, Shape: ShapeOrphanRenewed, Faults: overlappingFaults(hist.Faults, []Op{*o}, horizon),
			Summary: fmt.Sprintf("p%d was refused a lock that only ended holds (released, or retired past the lease bound) could occupy: beyond the faults", o.Process),
			Cause: "a release answered ok frees the lock, and a process that crashed or was retired must leave it free within one lease of its last request; " +
				"the lock kept a hold nobody owns (renewed it, or set a lease longer than asked)"})
	}
	return bad
}

// retiredSpans are, for each hold that ended (its process retired by an
// info op or an Abandon, or its release answered ok), the span in which it
// may still exist: bounded, to one lease (plus leaseBoundSlack) past the
// retired process's last request, or to the release's reply; open, to the
// horizon.
func retiredSpans(holds []*hold, acqs []*Op, opts Options, horizon int64) (bounded, open []span) {
	add := func(from, last int64, lease int64) {
		bounded = append(bounded, span{from, last + lease + leaseBoundSlack(lease)})
		open = append(open, span{from, horizon})
	}
	for _, h := range holds {
		var lease int64 // the longest of its acquires' (a reentry may set a longer one)
		for _, a := range h.acquires() {
			lease = max(lease, opLease(a, opts))
		}
		switch {
		case h.endOp != nil && h.endOp.retires():
			add(h.grant.Call, h.endOp.effectiveDeadline(), lease)
		case h.releasedOK(): // gone at its release: no lease to wait out
			bounded = append(bounded, span{h.grant.Call, max(h.lastEffect(), h.endOp.Return+driftSlack(lease))})
			open = append(open, span{h.grant.Call, horizon})
		}
	}
	for _, o := range acqs {
		if o.Outcome == Info {
			add(o.Call, o.effectiveDeadline(), opLease(o, opts)) // it may have been granted
		}
	}
	return bounded, open
}

// liveSpans are the spans in which a live process may have held the lock
// (from its grant's call to the end of a hold that was not released:
// refused, expired, or standing at the end). A waiter's own holds are
// among them: a waiting process holds nothing, so they never cover its
// wait.
func liveSpans(holds []*hold, horizon int64) []span {
	var out []span
	for _, h := range holds {
		switch {
		case h.endOp == nil:
			out = append(out, span{h.grant.Call, horizon})
		case !h.endOp.retires() && !h.releasedOK():
			out = append(out, span{h.grant.Call, h.lastEffect()})
		}
	}
	return out
}

// gaps returns the stretches between the union of spans, sorted.
func gaps(spans []span) []span {
	sort.Slice(spans, func(a, b int) bool { return spans[a].from < spans[b].from })
	var out []span
	if len(spans) == 0 {
		return nil
	}
	reach := spans[0].to
	out = append(out, span{math.MinInt64, spans[0].from})
	for _, s := range spans[1:] {
		if s.from > reach {
			out = append(out, span{reach, s.from})
		}
		reach = max(reach, s.to)
	}
	return append(out, span{reach, math.MaxInt64})
}

// freeThroughout reports whether [from, to] lies inside one of the sorted
// gaps (open at both ends: a span's own ends are not free).
func freeThroughout(from, to int64, gaps []span) bool {
	i := sort.Search(len(gaps), func(i int) bool { return gaps[i].to > to })
	return i < len(gaps) && gaps[i].from < from
}

// freeSomewhere reports whether some instant of [from, to] lies inside one
// of the sorted gaps.
func freeSomewhere(from, to int64, gaps []span) bool {
	i := sort.Search(len(gaps), func(i int) bool { return gaps[i].to > from })
	return i < len(gaps) && gaps[i].from < to && gaps[i].to > gaps[i].from+1
}

// opLease is the lease an acquire asked for (the watchdog's for <= 0).
func opLease(o *Op, opts Options) int64 {
	if o.Lease > 0 {
		return o.Lease
	}
	return opts.watchdogLease()
}

// lockAcquires groups h's acquires that failed or whose outcome is unknown
// by lock, in history order: what leaseBound reads of each lock, gathered
// in one pass.
func lockAcquires(h *History) map[string][]*Op {
	out := map[string][]*Op{}
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Kind == Acquire && (o.Outcome == Fail || o.Outcome == Info) {
			out[o.Lock] = append(out[o.Lock], o)
		}
	}
	return out
}
