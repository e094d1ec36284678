package model

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
)

// DefaultWaitLeases is the liveness bound used when Options.MaxWait is 0, in
// leases: an acquire (granted or given up) that spent longer than this many
// of its lock's longest lease waiting on a free lock, outside every fault
// window, is a violation. A lock that bounds every wait by the holder's TTL
// (Redisson's waiting) loses at most one lease per lost wake-up, and a
// wake-up is lost only through a fault; a lost wake-up without that bound
// leaves the waiter on the free lock until its context ends.
const DefaultWaitLeases = 2

// span is a time interval [from, to] in history nanoseconds.
type span struct{ from, to int64 }

// holdSpans returns, per process, the intervals in which it may have held
// lock: from the grant's reply (a grant takes effect before it, by the
// reply's latency) to the final release's reply; a hold whose release is
// unknown (info) or that a retired acquire (info) may have taken lasts one
// lease past the op's deadline (a retired handle no longer renews); a hold
// never released lasts to the horizon.
// ops are the lock's ops (lockOps), in any order.
func holdSpans(ops []*Op, lease func(Op) int64, horizon int64) map[int][]span {
	type state struct {
		count int
		start int64
		lease int64
	}
	cur := map[int]*state{}
	out := map[int][]span{}
	for _, o := range opsByCall(ops) {
		s := cur[o.Process]
		if s == nil {
			s = &state{}
			cur[o.Process] = s
		}
		switch {
		case o.Kind == Acquire && o.Outcome == OK:
			if s.count == 0 {
				s.start, s.lease = o.Return, lease(*o)
			}
			s.count++
		case o.Kind == Acquire && o.Outcome == Info:
			from := o.Call
			if s.count > 0 {
				from = s.start
			}
			out[o.Process] = append(out[o.Process], span{from, o.effectiveDeadline() + lease(*o)})
			s.count = 0
		case o.Kind == Expire && s.count > 0:
			out[o.Process] = append(out[o.Process], span{s.start, o.Return})
			s.count = 0
		case o.Kind == Release && s.count > 0:
			end := o.Return
			switch o.Outcome {
			case OK:
				if s.count--; s.count > 0 {
					continue
				}
			case Info:
				end = o.effectiveDeadline() + s.lease
			}
			out[o.Process] = append(out[o.Process], span{s.start, end})
			s.count = 0
		}
	}
	for p, s := range cur {
		if s.count > 0 {
			out[p] = append(out[p], span{s.start, horizon})
		}
	}
	return out
}

// opsByCall returns the acquires, releases and expiries of ops (one
// lock's) ordered by call time.
func opsByCall(ops []*Op) []*Op {
	var out []*Op
	for _, o := range ops {
		if o.Kind == Acquire || o.Kind == Release || o.Kind == Expire {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Call < out[b].Call })
	return out
}

// longestStretch returns the longest stretch of [from, to] that no span in
// covers covers (covers is sorted by from), the earliest of equals.
func longestStretch(from, to int64, covers []span) span {
	var longest span
	at := from
	take := func(end int64) {
		if end-at > longest.to-longest.from {
			longest = span{at, end}
		}
	}
	for _, c := range covers {
		if c.from >= to {
			break
		}
		if c.to <= at {
			continue
		}
		take(c.from)
		if at = max(at, c.to); at >= to {
			return longest
		}
	}
	take(to)
	return longest
}

// uncovered returns how much of [from, to] no span in covers (covers is
// sorted by from).
func uncovered(from, to int64, covers []span) int64 {
	free, at := int64(0), from
	for _, c := range covers {
		if c.from >= to {
			break
		}
		if c.to <= at {
			continue
		}
		if c.from > at {
			free += c.from - at
		}
		at = max(at, c.to)
		if at >= to {
			return free
		}
	}
	return free + max(0, to-at)
}

// freeWaits calls f for every acquire (granted or given up) on lock l that
// waited longer than bound(l, longest), longest being the longest lease
// of l's acquires, with the spans in which something else explains its
// wait (another process's possible holds, the windows of the faults that
// may hold up its process: Fault.delays) that meet it, sorted by start.
// bound is called once per lock.
func freeWaits(h *History, opts Options, bound func(l string, longest int64) int64, f func(o Op, bound int64, covers []span)) {
	horizon := h.horizon()
	lease := func(o Op) int64 {
		if o.Lease > 0 {
			return o.Lease
		}
		return opts.watchdogLease()
	}
	g := groupLockOps(h)
	for _, l := range g.names {
		ops := g.ops[l]
		b := bound(l, longestLease(ops, lease))
		var ci *coverIndex // built for the lock's first long wait
		var reserved []reservation
		for _, o := range ops {
			if o.Kind != Acquire || o.Outcome == Info || o.Return-o.Call <= b {
				continue
			}
			if ci == nil {
				ci = newCoverIndex(h.Faults, horizon, holdSpans(ops, lease, horizon))
				if opts.fair(h) {
					reserved = reservations(ops, h.Faults, horizon, opts)
				}
			}
			f(*o, b, reservedFor(ci.meeting(o.Call, o.Return, o.Process), reserved, o))
		}
	}
}

// reservation is a span in which a fair lock may be kept free for a
// queued acquire whose process a fault held up: FIFO grants the head of
// the queue first, and a waiter behind it waits, on a free lock, for as
// long as the head's client cannot take its turn.
type reservation struct {
	span
	proc int
	enq  int64 // when the reserving acquire was queued
}

// reservations are the reservations of a fair lock's ops (one lock's): per
// acquire, each window of a fault that held its process up while it was
// queued, to the acquire's return, or to the fault's end and, for a drop,
// the client's reconnection after it (Options.reconnectAfter), if sooner;
// and the places of the waiters that died queued (deadWaiters).
func reservations(ops []*Op, faults []Fault, horizon int64, opts Options) []reservation {
	out := deadWaiters(ops, faults, horizon, opts)
	for _, q := range ops {
		if q.Kind != Acquire {
			continue
		}
		enq := queuedAt(q)
		for _, f := range faults {
			end := f.end(horizon)
			if !f.delays(q.Process) || f.Start >= q.Return || end <= enq {
				continue
			}
			if opts.allowOf(f) == AllowDrop {
				end += opts.reconnectAfter(q.Process, f.Start, end)
			}
			out = append(out, reservation{span{max(f.Start, enq), min(q.Return, end)}, q.Process, enq})
		}
	}
	return out
}

// deadWaiters are the reservations of acquires whose process a
// client-crash killed while they waited: a fair lock keeps a dead waiter's
// place for its claimed queue timeout (Options.QueueTimeout), and the
// places of dead waiters queued one behind another time out one after
// another, so each lasts from its crash to a queue timeout past the later
// of its crash and the end of the one queued before it (capped at the
// horizon). None without the claim.
func deadWaiters(ops []*Op, faults []Fault, horizon int64, opts Options) []reservation {
	if opts.QueueTimeout <= 0 {
		return nil
	}
	var dead []reservation
	for _, q := range ops {
		if q.Kind != Acquire || q.Outcome != Info {
			continue
		}
		enq := queuedAt(q)
		for _, f := range faults {
			if f.Name == "client-crash" && f.hits(q.Process) && f.Start >= enq && f.Start <= q.Return {
				dead = append(dead, reservation{span{f.Start, 0}, q.Process, enq})
				break
			}
		}
	}
	slices.SortFunc(dead, func(a, b reservation) int { return compare(a.enq, b.enq) })
	end := int64(0)
	for i := range dead {
		end = max(dead[i].from, end) + int64(opts.QueueTimeout)
		dead[i].to = min(end, horizon)
	}
	return dead
}

// deadWaitersAhead are the spans in which waiters queued before o on a
// fair lock, dead since, kept their places (deadWaiters): o's wait over
// them is the lock's claim, not a fault's.
func deadWaitersAhead(h *History, o *Op, horizon int64, opts Options) []span {
	if opts.QueueTimeout <= 0 || !opts.fair(h) {
		return nil
	}
	var ops []*Op
	for i := range h.Ops {
		if h.Ops[i].Lock == o.Lock {
			ops = append(ops, &h.Ops[i])
		}
	}
	return reservedFor(nil, deadWaiters(ops, h.Faults, horizon, opts), o)
}

// queuedAt is when o was queued: its recorded Enqueued, else its call.
func queuedAt(o *Op) int64 {
	if o.Enqueued > 0 {
		return o.Enqueued
	}
	return o.Call
}

// reservedFor adds to covers (sorted by start) the reservations of acquires
// queued before o by other processes that meet o's wait, sorted by start.
func reservedFor(covers []span, reserved []reservation, o *Op) []span {
	enq, added := queuedAt(o), false
	for _, r := range reserved {
		if r.proc != o.Process && r.enq < enq && r.to > o.Call && r.from < o.Return {
			covers, added = append(covers, r.span), true
		}
	}
	if added {
		slices.SortFunc(covers, func(x, y span) int { return compare(x.from, y.from) })
	}
	return covers
}

// coverIndex holds one lock's cover spans (fault windows, and every
// process's possible holds) sorted by start, with the running maximum of
// their ends, so that the spans meeting one wait are found without
// gathering and sorting them all for every waiter.
type coverIndex struct {
	spans  []span
	procs  []int   // the process of each hold span; -1-i for the window of faults[i]
	reach  []int64 // reach[i]: the latest end among spans[:i+1]
	faults []Fault
}

func newCoverIndex(faults []Fault, horizon int64, holds map[int][]span) *coverIndex {
	ci := &coverIndex{faults: faults}
	for i, f := range faults {
		ci.spans, ci.procs = append(ci.spans, span{f.Start, f.end(horizon)}), append(ci.procs, -1-i)
	}
	for p, hs := range holds {
		for _, s := range hs {
			ci.spans, ci.procs = append(ci.spans, s), append(ci.procs, p)
		}
	}
	sort.Sort(ci)
	ci.reach = make([]int64, len(ci.spans))
	for i, s := range ci.spans {
		ci.reach[i] = s.to
		if i > 0 {
			ci.reach[i] = max(s.to, ci.reach[i-1])
		}
	}
	return ci
}

func (ci *coverIndex) Len() int           { return len(ci.spans) }
func (ci *coverIndex) Less(a, b int) bool { return ci.spans[a].from < ci.spans[b].from }
func (ci *coverIndex) Swap(a, b int) {
	ci.spans[a], ci.spans[b] = ci.spans[b], ci.spans[a]
	ci.procs[a], ci.procs[b] = ci.procs[b], ci.procs[a]
}

// covers reports whether span i explains a wait of process p: another
// process's possible hold, or the window of a fault that may hold p up.
func (ci *coverIndex) covers(i, p int) bool {
	if q := ci.procs[i]; q < 0 {
		return ci.faults[-1-q].delays(p)
	}
	return ci.procs[i] != p
}

// meeting returns, sorted by start, the spans that explain a wait of
// process except (covers) and meet (from, to): those uncovered and
// longestStretch do not skip.
func (ci *coverIndex) meeting(from, to int64, except int) []span {
	hi := sort.Search(len(ci.spans), func(i int) bool { return ci.spans[i].from >= to })
	var out []span
	for i := hi - 1; i >= 0 && ci.reach[i] > from; i-- {
		if ci.spans[i].to > from && ci.covers(i, except) {
			out = append(out, ci.spans[i])
		}
	}
	slices.Reverse(out)
	return out
}

// lostWakeUp is the cause of a wait on a free lock.
const lostWakeUp = "no holder and no fault explains the wait: a lost wake-up"

// checkFreeWaits flags acquires (granted or given up) that spent longer
// than DefaultWaitLeases of their lock's longest lease on a free lock: time
// in which no other process may have held it and no fault window was open.
// It returns the bound it used per lock and the violations.
func checkFreeWaits(h *History, opts Options) (bounds map[string]time.Duration, bad []Example, count int) {
	bounds = map[string]time.Duration{}
	bound := func(l string, longest int64) int64 {
		b, ok := waitBound(longest, opts.OpTimeout)
		if !ok {
			bounds[l] = -1
			return math.MaxInt64 // no room below an op's length: not bounded
		}
		bounds[l] = time.Duration(b)
		return b
	}
	freeWaits(h, opts, bound, func(o Op, bound int64, covers []span) {
		free := uncovered(o.Call, o.Return, covers)
		if free <= bound {
			return
		}
		count++
		if len(bad) < opts.maxExamples() {
			ex := Example{Lock: o.Lock, Ops: []Op{o}, Shape: ShapeWaitOnFree, Cause: lostWakeUp,
				Summary: fmt.Sprintf("p%d waited %s, %s of it on a free lock outside faults (> %s)",
					o.Process, time.Duration(o.Return-o.Call), time.Duration(free), time.Duration(bound))}
			stretch := longestStretch(o.Call, o.Return, covers)
			waitEvidence(&ex, h, opts.Wire, o, stretch.from, stretch.to)
			bad = append(bad, ex)
		}
	})
	return bounds, bad, count
}

// checkFreeStretches flags acquires (granted or given up) that waited
// through one continuous stretch of free lock longer than opts.FreeWait.
func checkFreeStretches(h *History, opts Options) (count int, bad []Example) {
	bound := func(string, int64) int64 { return int64(opts.freeStretchBound()) }
	return checkStretches(h, opts, bound, lostWakeUp)
}

// checkStretches flags acquires (granted or given up) that waited through
// one continuous stretch of free lock longer than bound(lock); cause says
// what that means.
func checkStretches(h *History, opts Options, bound func(l string, longest int64) int64, cause string) (count int, bad []Example) {
	freeWaits(h, opts, bound, func(o Op, bound int64, covers []span) {
		stretch := longestStretch(o.Call, o.Return, covers)
		if stretch.to-stretch.from <= bound {
			return
		}
		count++
		if len(bad) < opts.maxExamples() {
			ex := Example{Lock: o.Lock, Ops: []Op{o}, Shape: ShapeWaitOnFree, Cause: cause,
				Summary: fmt.Sprintf("p%d waited %s, %s of it in one stretch on a free lock outside faults (> %s)",
					o.Process, time.Duration(o.Return-o.Call), time.Duration(stretch.to-stretch.from), time.Duration(bound))}
			waitEvidence(&ex, h, opts.Wire, o, stretch.from, stretch.to)
			bad = append(bad, ex)
		}
	})
	return count, bad
}

// longestLease is the longest lease (lease(o)) among the acquires of ops
// (one lock's).
func longestLease(ops []*Op, lease func(Op) int64) int64 {
	var longest int64
	for _, o := range ops {
		if o.Kind == Acquire {
			longest = max(longest, lease(*o))
		}
	}
	return longest
}

// waitBound is the derived bound on an acquire's waiting on a free lock,
// given its lock's longest lease: DefaultWaitLeases leases (a waiter that
// missed its wake-up waits out at most the holder's lease before it tries
// again), kept below opTimeout (> 0), the longest an op may last, so that
// a waiter that sits out a whole op on a free lock is seen. When two
// leases outlast an op, the bound lies halfway between one lease and the
// op's length; ok is false when even one lease leaves no room below it.
func waitBound(longest int64, opTimeout time.Duration) (b int64, ok bool) {
	b = DefaultWaitLeases * longest
	switch op := int64(opTimeout); {
	case op <= 0 || b < op:
		return b, true
	case 10*longest >= 9*op:
		return 0, false
	default:
		return (longest + op) / 2, true
	}
}
