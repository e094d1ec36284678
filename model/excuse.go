package model

import (
	"slices"
	"sort"
	"time"
)

// A fault window excuses a late TryLock (CheckTiming), a long wait (the
// liveness checker) or a refusal of a free lock (the lease bound) only if
// its fault could hold that call up: it hits the call's process
// (Fault.Procs; every process for a server-side fault) and its kind delays
// calls. A fault on another client's link or another worker's stall delays
// none of this process's calls, and what it does to the lock (a holder
// stalled past its lease, a release in flight) the holds already account
// for.

// promptFaults are the fault kinds that hold no call up: refuse-once
// answers one command with an error at once and runs nothing,
// client-interrupt ends the call it interrupts at once, and client-crash
// ends its process's calls for good (the holds it leaves run out within
// the lease bound). None of them excuses anything of its own process
// either.
var promptFaults = []string{"refuse-once", "client-interrupt", "client-crash"}

// AfterNoneFault is how long past its window a fault that allows a correct
// lock nothing (AllowNone: latency, a slow or refused subscription) may
// still hold a waiter up: the round trip of its next attempt, or of its
// new subscription, on a busy machine (DefaultTryLockSlack's).
const AfterNoneFault = 250 * time.Millisecond

// delays reports whether f may hold up process p's calls.
func (f Fault) delays(p int) bool { return f.hits(p) && !slices.Contains(promptFaults, f.Name) }

// delayedAt reports whether the window of a fault that may hold up o's
// process meets o's interval.
func delayedAt(h *History, o *Op, horizon int64) bool {
	for _, f := range h.Faults {
		if f.delays(o.Process) && f.Start <= o.Return && f.end(horizon) >= o.Call {
			return true
		}
	}
	return false
}

// delays reports whether the window of a fault that may hold up o's
// process meets o's interval (delayedAt, on the indexed windows).
func (fs *faultSet) delays(o *Op) bool {
	for _, i := range fs.meetingRaw(o.Call, o.Return) {
		if fs.faults[i].delays(o.Process) {
			return true
		}
	}
	return false
}

// delayedThroughout reports whether the windows of the faults that may hold
// up o's own process (Fault.delays), each extended by AfterNoneFault, cover
// all of o's interval: only then can a fault explain an acquire refused on
// a lock that nothing could occupy, whatever the fault's kind (a pause of
// 130 ms does not explain a refusal after 5 s on a free lock).
func delayedThroughout(h *History, o *Op, horizon int64) bool {
	var covers []span
	for _, f := range h.Faults {
		end := f.end(horizon) + int64(AfterNoneFault)
		if f.delays(o.Process) && f.Start <= o.Return && end >= o.Call {
			covers = append(covers, span{f.Start, end})
		}
	}
	sort.Slice(covers, func(a, b int) bool { return covers[a].from < covers[b].from })
	return uncovered(o.Call, o.Return, covers) == 0
}

// excusedWait is how much of acquire o's wait the faults that may hold up
// its process excuse: all of it when one that may make a hold run out or
// be lost (suspend, drop, loss, split) meets it, since a waiter may then
// sit out the holder's lease; else the part of it that the windows of
// those that allow nothing (AllowNone) cover, each extended by
// AfterNoneFault: such a fault only slows requests while it lasts.
func excusedWait(h *History, o *Op, horizon int64, opts Options) int64 {
	covers := deadWaitersAhead(h, o, horizon, opts)
	for _, f := range h.Faults {
		end := f.end(horizon)
		switch {
		case f.Start > o.Return || end < o.Call:
		case f.Name == "client-crash" && !f.hits(o.Process):
			if lease, ok := f.crashedHold(h, o, horizon, opts); ok {
				// The crashed hold stands until its lease runs out, no longer.
				covers = append(covers, span{f.Start, end + lease + leaseBoundSlack(lease)})
			}
		case f.holdsUp(h, o, horizon, opts):
			return o.Return - o.Call
		case !f.delays(o.Process):
		case opts.allowOf(f) != AllowNone:
			if f.Start <= o.Return && end >= o.Call {
				return o.Return - o.Call
			}
		case f.Start <= o.Return && end+int64(AfterNoneFault) >= o.Call:
			covers = append(covers, span{f.Start, end + int64(AfterNoneFault)})
		}
	}
	sort.Slice(covers, func(a, b int) bool { return covers[a].from < covers[b].from })
	return o.Return - o.Call - uncovered(o.Call, o.Return, covers)
}

// holdsUp reports whether f, meeting acquire o's wait, hit another process
// that may have held o's lock from the fault's start to the end of the
// wait, in a way that can keep that hold from its release: a fault that
// may make a hold outlast its section (AllowNone aside). A waiter then
// sits out that holder's lease, as it would behind a holder the fault hit
// directly. A crash is crashedHold's.
func (f Fault) holdsUp(h *History, o *Op, horizon int64, opts Options) bool {
	if len(f.Procs) == 0 || f.hits(o.Process) || opts.allowOf(f) == AllowNone {
		return false
	}
	for _, q := range f.Procs {
		if _, ok := heldWithin(h, o.Lock, q, f.Start, o.Return, horizon, opts); ok {
			return true
		}
	}
	return false
}

// crashedHold returns the longest lease of the holds on o's lock that the
// crash f ended in the processes it hit, and whether there was one: such a
// hold stands until its lease runs out (plus leaseBoundSlack, as the lease
// bound counts it), and a waiter behind it is held up that long, no longer.
func (f Fault) crashedHold(h *History, o *Op, horizon int64, opts Options) (int64, bool) {
	var longest int64
	found := false
	for _, q := range f.Procs {
		if lease, ok := heldWithin(h, o.Lock, q, f.Start, o.Return, horizon, opts); ok {
			longest, found = max(longest, lease), true
		}
	}
	return longest, found
}

// heldWithin reports whether process p may have held lock at some time in
// [from, to]: from the call of an acquire answered ok or unknown to the
// return of the release that ended its last hold (a reentrant lock's holds
// counted), or to the horizon when none did; and the longest lease of that
// hold's acquires.
func heldWithin(h *History, lock string, p int, from, to, horizon int64, opts Options) (lease int64, held bool) {
	holds, since := 0, int64(0)
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Process != p || o.Lock != lock || o.Call > to {
			continue
		}
		switch {
		case o.Kind == Acquire && o.Outcome != Fail:
			if holds == 0 {
				since, lease = o.Call, 0
			}
			holds++
			lease = max(lease, opLease(o, opts))
		case o.Kind == Release && holds > 0 && o.Outcome != Info:
			if holds--; holds == 0 && since <= to && o.Return >= from {
				return lease, true
			}
		}
	}
	return lease, holds > 0 && since <= to && horizon >= from
}
