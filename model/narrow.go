package model

import (
	"context"
	"sort"

	"github.com/anishathalye/porcupine"
)

// narrowConflict returns the window of the illegal segment ops (sorted by
// call) that holds its first contradiction, itself illegal, found with
// O(log n) checks of at most n ops each: so the explanation's own searches
// (minimalConflict, refusalIn) run on a window of a few ops around the
// contradiction, however long the segment (a lock broken once is often one
// segment to the end of its history: its counts never agree again). The
// window is the latest illegal suffix of the shortest illegal prefix, both
// cut at quiet instants (no op in flight).
//
// The prefix is sound: ops called after a quiet instant are linearized
// after every op that returned before it, so a prefix ending there is
// linearizable whenever the segment is, and an illegal prefix holds a
// contradiction of the segment; illegality only grows with the prefix, so
// the shortest is found by bisection.
//
// The suffix starts at a quiet instant where the recorded outcomes fix
// every live process's holds (balances.determined), from the most
// permissive state those counts allow: the live holder, if any, or a free
// lock that the retired processes may hold until the latest time any of
// them could (a larger RetiredUntil only admits more). So the window,
// illegal from that state, is illegal from every state the ops before can
// leave. When ctx ends the window found so far is returned.
func narrowConflict(ctx context.Context, m porcupine.Model, ops []porcupine.Operation) []porcupine.Operation {
	legal := func(sub []porcupine.Operation) bool {
		return ctx.Err() != nil || linearizable(m, sub)
	}
	cuts := quietCuts(ops)
	// The shortest illegal prefix: ops[:cuts[k].at] with k the least whose
	// prefix is illegal (the whole segment is; so is the prefix to where
	// the counts contradict, if they do).
	last := len(cuts) - 1
	if at, bad := countsContradict(ops); bad {
		last = sort.Search(len(cuts), func(i int) bool { return cuts[i].at >= at })
	}
	k := sort.Search(last, func(i int) bool { return !legal(ops[:cuts[i].at]) })
	if ctx.Err() != nil {
		return ops
	}
	prefix := ops[:cuts[k].at]
	w := prefix
	// The latest determined cut before it whose suffix is still illegal.
	var starts []quietCut
	for _, c := range cuts[:k] {
		if c.init != nil && c.at > 0 {
			starts = append(starts, c)
		}
	}
	suffix := func(c quietCut) []porcupine.Operation {
		first := ops[c.at]
		init := porcupine.Operation{ClientId: c.proc, Input: &stepInput{src: -1, init: c.init, process: c.proc, call: first.Call - 1}, Call: first.Call - 1, Return: first.Call - 1}
		return append([]porcupine.Operation{init}, prefix[c.at:]...)
	}
	lo, hi := 0, len(starts) // starts[:lo] illegal so far (monotone in practice; each answer is checked)
	for lo < hi && ctx.Err() == nil {
		mid := (lo + hi) / 2
		if s := suffix(starts[mid]); !legal(s) {
			w, lo = s, mid+1
		} else {
			hi = mid
		}
	}
	return w
}

// quietCut is a quiet instant of a segment: before ops[at], no earlier op
// still in flight (at == len(ops): the segment's end).
type quietCut struct {
	at int
	// init is the most permissive state at the cut, when the outcomes
	// before fix every live process's holds; nil otherwise.
	init *lockState
	proc int // the live holder, when init is held
}

// quietCuts lists ops' quiet instants in order, the segment's end last,
// replaying the holds as split does (a read-write lock's with both sides'
// counts: a cut among readers starts from those readers, not a free lock).
func quietCuts(ops []porcupine.Operation) []quietCut {
	var cuts []quietCut
	var b cutter = newBalances()
	if len(ops) > 0 && ops[0].Input.(*stepInput).rw {
		b = newRWBalances()
	}
	var maxRet, retiredUntil int64
	for i, op := range ops {
		in := op.Input.(*stepInput)
		if i > 0 && maxRet < op.Call {
			cuts = append(cuts, permissiveCut(i, b, retiredUntil, op.Call))
		}
		maxRet = max(maxRet, op.Return)
		if in.init != nil {
			b.seed(in.process, *in.init)
			retiredUntil = max(retiredUntil, in.init.RetiredUntil)
			continue
		}
		if until, retired := b.apply(in); retired {
			retiredUntil = max(retiredUntil, until)
		}
	}
	return append(cuts, quietCut{at: len(ops)})
}

// permissiveCut is the cut before ops[at] (called at call) with the most
// permissive state b allows, if b fixes one.
func permissiveCut(at int, b cutter, retiredUntil, call int64) quietCut {
	c := quietCut{at: at}
	if !b.determined() {
		return c
	}
	if p, st, ok := b.initial(); ok {
		c.init, c.proc = &st, p
		return c
	}
	st := lockState{}
	if retiredUntil >= call {
		st.RetiredUntil = retiredUntil
	}
	c.init = &st
	return c
}
