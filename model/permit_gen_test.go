package model

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"
)

// permitTruth is a concrete permit semaphore for the generator and the
// brute force: the permits in the lease set with the instant each lease
// ends (noLeaseEnd: none), as Redisson's scripts keep them.
type permitTruth struct {
	set   bool
	avail int64
	ends  map[string]int64
}

const noLeaseEnd = int64(1) << 60

func (p permitTruth) clone() permitTruth {
	c := p
	c.ends = map[string]int64{}
	for k, v := range p.ends {
		c.ends[k] = v
	}
	return c
}

// apply runs op's script at instant t and reports its reply (acquire: a
// permit taken; release: it was held and its lease had not ended; set: it
// set the permits).
func (p permitTruth) apply(o *Op, t int64) (permitTruth, bool) {
	q := p.clone()
	switch o.Kind {
	case PermitAcquire:
		// return the expired permit whose lease ended first (limit 1)
		first, found := "", false
		for id, end := range q.ends {
			if end <= t && (!found || end < q.ends[first] || (end == q.ends[first] && id < first)) {
				first, found = id, true
			}
		}
		if found {
			delete(q.ends, first)
			q.avail++
		}
		if !q.set || q.avail < 1 {
			return q, false
		}
		q.avail--
		end := noLeaseEnd
		if o.Lease > 0 {
			end = t + o.Lease
		}
		id := o.PermitID
		if id == "" { // not known (an info acquire): no release can name it
			id = fmt.Sprintf("~p%d@%d", o.Process, o.Call)
		}
		q.ends[id] = end
		return q, true
	case PermitRelease:
		end, ok := q.ends[o.PermitID]
		if !ok || o.PermitID == "" {
			return p, false
		}
		delete(q.ends, o.PermitID)
		q.avail++
		return q, end > t
	case SemSet:
		if q.set {
			return p, false
		}
		q.set, q.avail = true, o.N
		return q, true
	case SemAdd:
		q.set, q.avail = true, q.avail+o.N
		return q, true
	}
	return p, false
}

// genPermitHistory draws a correct permit semaphore's history: ops applied
// at increasing instants, each given a call before and a return after;
// some releases come after their lease ended; some ops are info.
func genPermitHistory(t *rapid.T, maxOps int, perturb bool) *History {
	h := &History{Header: Header{Version: FormatVersion}}
	truth := permitTruth{ends: map[string]int64{}}
	type proc struct {
		free    int64
		ids     []string
		retired bool
	}
	var procs []*proc
	nops := rapid.IntRange(1, maxOps).Draw(t, "ops")
	for k := range nops {
		at := int64(k+1) * 20
		kind := rapid.SampledFrom([]Kind{PermitAcquire, PermitAcquire, PermitRelease, PermitRelease, SemAdd, SemSet}).Draw(t, "kind")
		var free []int
		for i, p := range procs {
			if !p.retired && p.free < at-1 && (kind != PermitRelease || len(p.ids) > 0) {
				free = append(free, i)
			}
		}
		if kind == PermitRelease && len(free) == 0 {
			kind = PermitAcquire
		}
		if kind != PermitRelease && (len(free) == 0 || rapid.IntRange(0, 3).Draw(t, "newproc") == 0) {
			procs = append(procs, &proc{})
			free = []int{len(procs) - 1}
		}
		pi := free[rapid.IntRange(0, len(free)-1).Draw(t, "proc")]
		p := procs[pi]
		o := Op{Process: pi, Lock: "ps", Kind: kind}
		o.Call = max(p.free+1, at-rapid.Int64Range(0, 30).Draw(t, "before"))
		o.Return = at + rapid.Int64Range(0, 30).Draw(t, "after")
		switch kind {
		case PermitAcquire:
			o.Lease = rapid.Int64Range(0, 80).Draw(t, "lease")
			o.Wait = 10
			o.PermitID = fmt.Sprintf("id%d", k)
		case PermitRelease:
			j := rapid.IntRange(0, len(p.ids)-1).Draw(t, "which")
			o.PermitID = p.ids[j]
			p.ids = slices.Delete(p.ids, j, j+1)
		case SemAdd:
			o.N = rapid.Int64Range(-1, 2).Draw(t, "n")
		case SemSet:
			o.N = rapid.Int64Range(0, 3).Draw(t, "n")
		}
		next, replied := truth.apply(&o, at)
		info := rapid.IntRange(0, 14).Draw(t, "info") == 0
		applied := kind != PermitAcquire || replied
		if !info || rapid.Bool().Draw(t, "effect") {
			truth = next
		} else {
			applied = false
		}
		o.Outcome = Fail
		if replied && (applied || info) {
			o.Outcome = OK
		}
		if kind == PermitAcquire && o.Outcome == OK && !info {
			p.ids = append(p.ids, o.PermitID)
		}
		if info {
			o.Outcome = Info
			p.retired = true
		}
		if o.Outcome != OK && kind == PermitAcquire {
			o.PermitID = ""
		}
		if perturb && rapid.IntRange(0, 7).Draw(t, "perturb") == 0 {
			if o.Outcome == OK {
				o.Outcome = Fail
			} else if o.Outcome == Fail {
				o.Outcome = OK
			}
		}
		p.free = o.Return
		h.Ops = append(h.Ops, o)
	}
	return h
}
