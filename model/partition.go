package model

import (
	"sort"

	"github.com/anishathalye/porcupine"
)

// segment is a slice of one lock's history that porcupine checks on its own.
type segment struct {
	lock string
	// init, unless nil, is the synthetic first op that sets the state the
	// segment starts in; ins are its ops in call order, a slice of the
	// lock's (no copy).
	init *stepInput
	ins  []*stepInput
	// ops are init and ins as porcupine takes them (build), when the
	// segment was made by segmentsOf; nil when tooBig, or made by
	// eachSegment (the check builds them one segment at a time).
	ops []porcupine.Operation
	// n counts the segment's ops, real counts those recorded in the
	// history (not synthetic).
	n, real int
	// tooBig is set when n exceeds Options.MaxSegmentOps: the segment is
	// undecided, and its ops are never built.
	tooBig bool
}

// segments splits h's lock ops (Acquire, Release, Abandon) per lock name and
// then at quiet points: instants where no op of that lock is in flight and
// the ops before determine the state: one live owner with a known count, or
// a free lock that no retired hold can still take (see heldCut). A segment
// that starts in a held state begins with a synthetic op that sets it. The
// history is linearizable iff every segment is (P-compositionality; see the
// package doc of porcupine).
//
// The state at a cut is computed from the ops' recorded outcomes alone: in
// every linearization of the ops before the cut, a live process holds exactly
// (#ok acquires - #ok releases) holds, because its holds end only through its
// own releases. When those counts are inconsistent (negative, or two live
// holders) there is no cut, and porcupine sees the violation.
//
// segments holds every segment at once; the checkers stream them one lock at
// a time (lockIndex.segmentsOf) instead.
func segments(h *History, opts Options) []segment {
	ix := indexLocks(h)
	var out []segment
	for _, l := range ix.locks {
		ix.segmentsOf(h, l, opts, func(s segment) bool { out = append(out, s); return true })
	}
	return out
}

// lockIndex groups a history's lock ops by lock name in one pass (4 bytes
// an op), so that one lock's segments can be built, checked and dropped
// before the next lock's are built.
type lockIndex struct {
	locks     []string           // sorted
	byLock    map[string][]int32 // lock -> indices in History.Ops
	retiredAt map[int]int32      // process -> index of the op that retired it
	rw        map[string]bool    // locks with an op that has a Mode (read-write locks)
}

func indexLocks(h *History) *lockIndex {
	ix := &lockIndex{byLock: map[string][]int32{}, retiredAt: map[int]int32{}, rw: map[string]bool{}}
	counts := map[string]int{} // a first pass sizes each lock's slice once
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Kind != Section {
			counts[o.Lock]++
		}
	}
	for l, n := range counts {
		ix.locks = append(ix.locks, l)
		ix.byLock[l] = make([]int32, 0, n)
	}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == Section {
			continue
		}
		ix.byLock[o.Lock] = append(ix.byLock[o.Lock], int32(i))
		if o.Mode != "" {
			ix.rw[o.Lock] = true
		}
		if o.retires() {
			ix.retiredAt[o.Process] = int32(i)
		}
	}
	sort.Strings(ix.locks)
	return ix
}

// segmentsOf builds lock's segments in time order, each with its ops
// (unless tooBig), and passes each to emit; it stops, returning false,
// when emit does.
func (ix *lockIndex) segmentsOf(h *History, lock string, opts Options, emit func(segment) bool) bool {
	return ix.eachSegment(h, lock, opts, nil, func(s segment) bool {
		if !s.tooBig {
			s.ops = s.build(make([]porcupine.Operation, 0, s.n))
		}
		return emit(s)
	})
}

// eachSegment is segmentsOf without the ops: a segment's inputs only,
// whose ops the caller builds when it needs them (segment.build). A
// process retired on another lock is retired on this one too (a
// synthetic Abandon at that op). The inputs are built in reuse's arrays
// (nil: new ones), which the segments then point into.
func (ix *lockIndex) eachSegment(h *History, lock string, opts Options, reuse *lockInputs, emit func(segment) bool) bool {
	watchdog := opts.watchdogLease()
	setBack := clockSetBack(h.Faults)
	idx := ix.byLock[lock]
	if reuse == nil {
		reuse = &lockInputs{}
	}
	slab := reuse.slab[:0]
	seen := map[int]bool{}
	for _, i := range idx {
		o := &h.Ops[i]
		lease := o.Lease
		if lease <= 0 {
			lease = watchdog
		}
		lease += setBack // a clock set back makes a retired hold outlive its lease
		slab = append(slab, stepInput{
			src: int(i), kind: o.Kind, outcome: o.Outcome, process: o.Process,
			call: o.Call, deadline: o.effectiveDeadline(), lease: lease, op: o, cancelled: o.Cancelled || opts.waitSpent(o),
		})
		seen[o.Process] = true
	}
	procs := make([]int, 0, len(seen))
	for p := range seen {
		procs = append(procs, p)
	}
	sort.Ints(procs)
	for _, p := range procs {
		if r, ok := ix.retiredAt[p]; ok && h.Ops[r].Lock != lock {
			ro := &h.Ops[r]
			slab = append(slab, stepInput{src: -1, kind: Abandon, outcome: Info, process: p, call: ro.Call, deadline: ro.effectiveDeadline()})
		}
	}
	ins := reuse.ins[:0]
	rw := ix.rw[lock]
	for i := range slab {
		slab[i].rw = rw
		ins = append(ins, &slab[i])
	}
	reuse.slab, reuse.ins = slab, ins
	sort.SliceStable(ins, func(a, b int) bool {
		if ins[a].call != ins[b].call {
			return ins[a].call < ins[b].call
		}
		return ins[a].deadline < ins[b].deadline
	})
	if opts.Fair || opts.SplitVotes || opts.AttemptsHold {
		markContended(ins)
	}
	var b cutter = newBalances()
	if rw {
		b = newRWBalances()
	}
	return split(lock, ins, opts.maxSegmentOps(), b, emit)
}

// cutter is what split needs of a lock's running balances: whether the ops
// seen so far fix one state, that state (with a process holding in it, if
// any), and the next op; seed starts the counts from a segment's initial
// state st (proc: its holder).
type cutter interface {
	determined() bool
	initial() (p int, st lockState, held bool)
	apply(in *stepInput) (until int64, retired bool)
	seed(proc int, st lockState)
}

// markContended flags fail acquires during which another process had an
// acquire in flight: in a fair lock that request may be ahead in the queue,
// so the lock may be free yet reserved; in a quorum lock (RedLock) the two
// may have split the nodes' votes; where attempts hold (AttemptsHold) the
// other's attempt may have held it for a moment. ins is sorted by call.
func markContended(ins []*stepInput) {
	var acq []*stepInput
	for _, in := range ins {
		if in.kind == Acquire {
			acq = append(acq, in)
		}
	}
	// The two latest-returning earlier acquires of distinct processes.
	type reach struct {
		ret  int64
		proc int
		set  bool
	}
	var r1, r2 reach
	for i, in := range acq {
		if in.outcome == Fail {
			for j := i + 1; j < len(acq) && acq[j].call <= in.op.Return; j++ {
				if acq[j].process != in.process {
					in.contended = true
					break
				}
			}
			if (r1.set && r1.proc != in.process && r1.ret >= in.call) || (r2.set && r2.proc != in.process && r2.ret >= in.call) {
				in.contended = true
			}
		}
		c := reach{in.op.Return, in.process, true}
		switch {
		case !r1.set || c.ret > r1.ret:
			if r1.proc != c.proc {
				r2 = r1
			}
			r1 = c
		case c.proc != r1.proc && (!r2.set || c.ret > r2.ret):
			r2 = c
		}
	}
}

// split cuts one lock's ops (sorted by call) at quiet points and passes
// each segment to emit, stopping (false) when emit does. A segment of more
// than limit ops (<= 0: no limit) is emitted tooBig.
func split(lock string, ins []*stepInput, limit int, b cutter, emit func(segment) bool) bool {
	cur := segment{lock: lock}
	start := 0 // cur's first op in ins
	var maxRet, retiredUntil int64
	for i, in := range ins {
		if i > 0 && maxRet < in.call && b.determined() && (retiredUntil < in.call || heldCut(b)) {
			if !emit(cur.close(ins[start:i], limit)) {
				return false
			}
			cur, start = segment{lock: lock}, i
			retiredUntil = 0 // the state at the cut has none: a live holder (heldCut), or every one ran out
			if p, st, ok := b.initial(); ok {
				cur.init = &stepInput{src: -1, init: &st, process: p, call: in.call - 1, rw: in.rw}
			}
		}
		maxRet = max(maxRet, in.deadline)
		if until, retired := b.apply(in); retired {
			retiredUntil = max(retiredUntil, until)
		}
	}
	if start < len(ins) {
		return emit(cur.close(ins[start:], limit))
	}
	return true
}

// close sets s's ops to ins and counts them, against limit.
func (s segment) close(ins []*stepInput, limit int) segment {
	s.ins = ins
	s.n = len(ins)
	if s.init != nil {
		s.n++
	}
	for _, in := range ins {
		if in.src >= 0 {
			s.real++
		}
	}
	s.tooBig = limit > 0 && s.n > limit
	return s
}

// build appends s's ops, as porcupine takes them, to buf: the synthetic
// first op, if any, then the recorded ones (and synthetic retirements) in
// call order, each op's Return its effective deadline.
func (s segment) build(buf []porcupine.Operation) []porcupine.Operation {
	if in := s.init; in != nil {
		buf = append(buf, porcupine.Operation{ClientId: in.process, Input: in, Call: in.call, Return: in.call})
	}
	for _, in := range s.ins {
		buf = append(buf, porcupine.Operation{
			ClientId: in.process, Input: in, Output: boxedOutcome(in.outcome),
			Call: in.call, Return: in.deadline, Metadata: metadataOf(in),
		})
	}
	return buf
}

// boxedOutcome is o as a porcupine Output without an allocation per op
// (a string in an interface is otherwise copied to the heap).
func boxedOutcome(o Outcome) interface{} {
	switch o {
	case OK:
		return OK
	case Fail:
		return Fail
	case Info:
		return Info
	}
	return o
}

func metadataOf(in *stepInput) interface{} {
	if in.op == nil {
		return nil
	}
	return in.op
}
