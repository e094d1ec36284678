package model

import (
	"math"
	"sort"
)

// hold is one process's belief that it holds one lock: from the return of
// the acquire that took its count from 0 to 1 (the grant) until the call of
// the op that ended the belief: the release that took the count back to 0
// or answered "not held", an Abandon, an Info op that retired the process,
// an Expire (the process let its lease run out on purpose: it knows it holds
// nothing from then on, whatever it goes on doing), or the end of the
// history.
type hold struct {
	grant *Op
	// floor, if > grant.Call, is the earliest its grant can have taken
	// effect (see grantFloors).
	floor int64
	end   int64
	// endOp ended the belief (nil: it lasted to the end of the history).
	endOp *Op
	// answered are the process's lock ops on the lock after the grant that
	// got an answer (ok or fail), endOp included when it did.
	answered []*Op
	// expires are the process's Expire ops on the lock whose window meets
	// the hold: the server may have dropped it at their instant (an
	// acquire inside an Expire's window may have been a reentry it ended).
	expires []*Op
	// shared marks a read hold of a read-write lock (Op.Mode read): other
	// read holds may stand with it.
	shared bool
}

func (h *hold) start() int64 { return h.grant.Return }

// until is the latest the hold may have stood in the server: the end of
// the belief, or the deadline of the op that ended it (a release takes
// effect somewhere in its interval).
func (h *hold) until() int64 {
	if h.endOp == nil {
		return h.end
	}
	return max(h.end, h.endOp.effectiveDeadline())
}

// since is the earliest the grant can have taken effect: its call, or a
// later floor that other holds set.
func (h *hold) since() int64 { return max(h.grant.Call, h.floor) }

// learnBy is the latest time the holder may still believe it holds after a
// loss it could learn of from learnAfter on: the return of its first call
// that started then or later and was answered as if the hold stood (a
// reentry or a release answered ok; math.MaxInt64: none). A call refused
// told the holder of the loss: whatever it believes after is its own.
func (h *hold) learnBy(learnAfter int64) int64 {
	for _, o := range h.answered {
		if o.Call >= learnAfter && o.Outcome == OK {
			return o.Return
		}
	}
	return math.MaxInt64
}

// firstAnswer is the holder's first call on the lock that started at from
// or later and got an answer (ok or fail; nil: none).
func (h *hold) firstAnswer(from int64) *Op {
	for _, o := range h.answered {
		if o.Call >= from {
			return o
		}
	}
	return nil
}

// acquires are the hold's ok acquires: its grant and its reentries (each
// may set a new explicit lease).
func (h *hold) acquires() []*Op {
	out := []*Op{h.grant}
	for _, o := range h.answered {
		if o.Kind == Acquire && o.Outcome == OK {
			out = append(out, o)
		}
	}
	return out
}

// lastEffect is the latest the hold may still stand in the server once its
// belief ended: its end op's deadline, or a later Expire's reply.
func (h *hold) lastEffect() int64 {
	t := h.endOp.effectiveDeadline()
	for _, x := range h.expires {
		t = max(t, x.Return)
	}
	return t
}

// releasedOK reports whether the belief ended with a release answered ok.
func (h *hold) releasedOK() bool {
	return h.endOp != nil && h.endOp.Kind == Release && h.endOp.Outcome == OK
}

// releaseRefused reports whether the belief ended with a release answered
// fail: the lock told its holder it held nothing.
func (h *hold) releaseRefused() bool {
	return h.endOp != nil && h.endOp.Kind == Release && h.endOp.Outcome == Fail
}

// holdsOf reconstructs every hold in hist, grouped by lock, each lock's
// sorted by start. A process's ops are read in call order; an op that
// retires the process (info, Abandon) ends its holds on every lock. On a
// read-write lock a process's two sides are holds of their own (Op.Mode);
// an Expire or Abandon, which name no side, meets both.
func holdsOf(hist *History, horizon int64) map[string][]*hold {
	type key struct {
		lock   string
		p      int
		shared bool
	}
	byProc := map[key][]*Op{}
	retired := map[int]*Op{} // the op that retired each process, on any lock
	for i := range hist.Ops {
		o := &hist.Ops[i]
		if r := retired[o.Process]; o.retires() && (r == nil || o.Call < r.Call) {
			retired[o.Process] = o
		}
		if o.Kind == Section {
			continue
		}
		k := key{o.Lock, o.Process, o.Mode == ModeRead}
		byProc[k] = append(byProc[k], o)
		if o.Mode == "" && (o.Kind == Expire || o.Kind == Abandon) {
			k.shared = true
			byProc[k] = append(byProc[k], o)
		}
	}
	out := map[string][]*hold{}
	for k, ops := range byProc {
		sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
		for _, h := range procHolds(ops, horizon) {
			if r := retired[k.p]; r != nil && r.Call < h.end {
				h.end, h.endOp = r.Call, r // retired on another lock
			}
			h.shared = k.shared
			out[k.lock] = append(out[k.lock], h)
		}
	}
	for _, hs := range out {
		sort.Slice(hs, func(a, b int) bool { return hs[a].start() < hs[b].start() })
	}
	return out
}

// procHolds is the holds of one process on one lock, from its ops in call
// order.
func procHolds(ops []*Op, horizon int64) []*hold {
	var out []*hold
	var cur *hold
	count := 0
	finish := func(o *Op) {
		cur.end, cur.endOp, count = o.Call, o, 0
		out, cur = append(out, cur), nil
	}
	for _, o := range ops {
		switch {
		case cur == nil && o.Kind == Acquire && o.Outcome == OK:
			cur, count = &hold{grant: o, end: horizon}, 1
		case cur == nil && o.Kind == Expire && len(out) > 0 && out[len(out)-1].endOp.Kind == Release && out[len(out)-1].endOp.Return >= o.Call:
			last := out[len(out)-1] // the Expire overlaps the release that ended the hold: it came first
			last.endOp = o
		case cur == nil:
		case o.Kind == Expire:
			again := lateAcquire(cur, o)
			finish(o)
			if again != nil { // it may have been a fresh grant after the lease ran out
				cur, count = &hold{grant: again, end: horizon}, 1
			}
		case o.Outcome == Info || o.Kind == Abandon:
			finish(o)
		case o.Kind == Acquire:
			cur.answered = append(cur.answered, o)
			if o.Outcome == OK {
				count++
			}
		case o.Kind == Release:
			cur.answered = append(cur.answered, o)
			if count--; count == 0 || o.Outcome == Fail {
				finish(o)
			}
		}
	}
	if cur != nil {
		out = append(out, cur)
	}
	attachExpires(out, ops)
	return out
}

// attachExpires gives each hold the Expire ops of ops (in call order) whose
// window meets it: Return >= its grant's call and Call <= its end. Only
// the Expires called within their longest window before the grant are
// looked at, so it is linear in the ops when windows are short.
func attachExpires(holds []*hold, ops []*Op) {
	var xs []*Op
	var span int64
	for _, o := range ops {
		if o.Kind == Expire {
			xs = append(xs, o)
			span = max(span, o.Return-o.Call)
		}
	}
	if len(xs) == 0 {
		return
	}
	for _, h := range holds {
		from := h.grant.Call - span // an Expire called before cannot return by the grant's call
		i := sort.Search(len(xs), func(i int) bool { return xs[i].Call >= from })
		for ; i < len(xs) && xs[i].Call <= h.end; i++ {
			if xs[i].Return >= h.grant.Call {
				h.expires = append(h.expires, xs[i])
			}
		}
	}
}

// lateAcquire is the last ok acquire of h whose reply came after the Expire
// x began, and whose own lease is not the one x ends: it may have taken
// effect after the lease ran out, as a fresh grant (nil: none).
func lateAcquire(h *hold, x *Op) *Op {
	var late *Op
	for _, o := range h.answered {
		ends := o.Lease > 0 && x.Call <= o.Call+o.Lease && x.Return >= o.Return+o.Lease // x is o's own expiry window
		if o.Kind == Acquire && o.Outcome == OK && o.Return >= x.Call && !ends {
			late = o
		}
	}
	return late
}
