package model

import (
	"sort"

	"github.com/anishathalye/porcupine"
)

// segment is a slice of one lock's history that porcupine checks on its own.
type segment struct {
	lock string
	ops  []porcupine.Operation // Input is *stepInput
}

// segments splits h's lock ops (Acquire, Release, Abandon) per lock name and
// then at quiet points: instants where no op of that lock is in flight, no
// retired hold can remain, and the ops before determine the state (free, or
// one live owner with a known count). A segment that starts in a held state
// begins with a synthetic op that sets it. The history is linearizable iff
// every segment is (P-compositionality; see the package doc of porcupine).
//
// The state at a cut is computed from the ops' recorded outcomes alone: in
// every linearization of the ops before the cut, a live process holds exactly
// (#ok acquires - #ok releases) holds, because its holds end only through its
// own releases. When those counts are inconsistent (negative, or two live
// holders) there is no cut, and porcupine sees the violation.
func segments(h *History, opts Options) []segment {
	watchdog := opts.watchdogLease()
	byLock := map[string][]*stepInput{}
	var locks []string
	retiredAt := map[int]*Op{}    // process -> op that retired it
	touched := map[int][]string{} // process -> locks it used, in first-use order
	type procLock struct {
		p    int
		lock string
	}
	seen := map[procLock]bool{} // avoids duplicates in touched
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == Section {
			continue
		}
		if _, ok := byLock[o.Lock]; !ok {
			locks = append(locks, o.Lock)
		}
		lease := o.Lease
		if lease <= 0 {
			lease = watchdog
		}
		byLock[o.Lock] = append(byLock[o.Lock], &stepInput{
			src: i, kind: o.Kind, outcome: o.Outcome, process: o.Process,
			call: o.Call, deadline: o.effectiveDeadline(), lease: lease, op: o,
		})
		if o.retires() {
			retiredAt[o.Process] = o
		}
		key := procLock{o.Process, o.Lock}
		if !seen[key] {
			seen[key] = true
			touched[o.Process] = append(touched[o.Process], o.Lock)
		}
	}
	// A process retired on one lock is retired on every lock it used.
	for p, r := range retiredAt {
		for _, l := range touched[p] {
			if l == r.Lock {
				continue
			}
			byLock[l] = append(byLock[l], &stepInput{
				src: -1, kind: Abandon, outcome: Info, process: p,
				call: r.Call, deadline: r.effectiveDeadline(),
			})
		}
	}
	sort.Strings(locks)
	var out []segment
	for _, l := range locks {
		ins := byLock[l]
		sort.SliceStable(ins, func(a, b int) bool {
			if ins[a].call != ins[b].call {
				return ins[a].call < ins[b].call
			}
			return ins[a].deadline < ins[b].deadline
		})
		if opts.Fair {
			markContended(ins)
		}
		out = append(out, split(l, ins)...)
	}
	return out
}

// markContended flags fail acquires during which another process had an
// acquire in flight: in a fair lock that request may be ahead in the queue,
// so the lock may be free yet reserved. ins is sorted by call.
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

// split cuts one lock's ops (sorted by call) at quiet points.
func split(lock string, ins []*stepInput) []segment {
	var out []segment
	cur := segment{lock: lock}
	bal := map[int]int{}     // live process -> holds
	lease := map[int]int64{} // live process -> longest lease among its holds
	var maxRet, retiredUntil int64
	positive, negative := 0, 0
	adjust := func(p, d int) {
		b := bal[p]
		if b > 0 {
			positive--
		} else if b < 0 {
			negative--
		}
		b += d
		bal[p] = b
		if b > 0 {
			positive++
		} else if b < 0 {
			negative++
		}
	}
	for i, in := range ins {
		if i > 0 && maxRet < in.call && retiredUntil < in.call && negative == 0 && positive <= 1 {
			out = append(out, cur)
			cur = segment{lock: lock}
			if positive == 1 {
				for p, b := range bal {
					if b > 0 {
						st := lockState{Held: true, Owner: p, Count: b, Lease: lease[p]}
						cur.ops = append(cur.ops, porcupine.Operation{
							ClientId: p, Input: &stepInput{src: -1, init: &st, process: p, call: in.call - 1},
							Call: in.call - 1, Return: in.call - 1,
						})
					}
				}
			}
		}
		ret := in.deadline
		cur.ops = append(cur.ops, porcupine.Operation{
			ClientId: in.process, Input: in, Output: in.outcome,
			Call: in.call, Return: ret, Metadata: metadataOf(in),
		})
		maxRet = max(maxRet, ret)
		p := in.process
		switch {
		case in.kind == Acquire && in.outcome == OK:
			adjust(p, 1)
			lease[p] = max(lease[p], in.lease)
		case in.kind == Release && in.outcome == OK:
			adjust(p, -1)
			if bal[p] == 0 {
				delete(lease, p)
			}
		}
		if in.outcome == Info || in.kind == Abandon {
			if bal[p] > 0 || (in.kind == Acquire && bal[p] == 0) {
				retiredUntil = max(retiredUntil, in.deadline+max(lease[p], in.lease))
			}
			adjust(p, -bal[p])
			delete(bal, p)
			delete(lease, p)
		}
	}
	if len(cur.ops) > 0 {
		out = append(out, cur)
	}
	return out
}

func metadataOf(in *stepInput) interface{} {
	if in.op == nil {
		return nil
	}
	return in.op
}
