package model

import (
	"fmt"
	"sort"
	"time"
)

// sectionsByResource groups Section ops by resource, each sorted by call.
func sectionsByResource(h *History) (map[string][]*Op, []string) {
	by := map[string][]*Op{}
	var names []string
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Section {
			continue
		}
		r := o.resource()
		if _, ok := by[r]; !ok {
			names = append(names, r)
		}
		by[r] = append(by[r], o)
	}
	sort.Strings(names)
	for _, ops := range by {
		sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	}
	return by, names
}

// CheckMutex checks mutual exclusion on the protected resources: no two
// critical sections (Section ops) of different processes overlap in time
// unless the resource rejected one of them (fenced off), and no accepted
// read-modify-write is lost: in the resource's order of accepted writes
// (Seq, when recorded) each write read the value the previous one wrote;
// without Seq, no two accepted writes read the same value. A section marked
// Overrun (it outlasted its lease on purpose) may overlap any other and
// read a stale value; the sections after it are held to the value it
// wrote, if its write was accepted.
func CheckMutex(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckMutualExclusion, Verdict: Valid}
	by, names := sectionsByResource(h)
	overlaps, lost, fenced, overrun, total := 0, 0, 0, 0, 0
	add := func(e Example) {
		if len(res.Examples) < opts.maxExamples() {
			res.Examples = append(res.Examples, e)
		}
	}
	for _, r := range names {
		ops := by[r]
		total += len(ops)
		// Overlapping sections: sweep by call, remembering the live section
		// that reaches furthest.
		var reach *Op
		for _, o := range ops {
			if o.Overrun {
				overrun++ // outlasted its lease on purpose: overlaps expected
				continue
			}
			if reach != nil && reach.Process != o.Process && o.Call < reach.Return {
				if reach.Outcome == Fail || o.Outcome == Fail {
					fenced++
				} else {
					overlaps++
					add(explainOverlap(h, r, reach, o, opts))
				}
			}
			if o.Outcome != Fail && (reach == nil || o.Return > reach.Return) {
				reach = o
			}
		}
		// Lost updates among accepted writes.
		var acc []*Op
		withSeq := true
		for _, o := range ops {
			if o.Outcome == OK {
				acc = append(acc, o)
				withSeq = withSeq && o.Seq > 0
			}
		}
		if withSeq {
			sort.SliceStable(acc, func(a, b int) bool { return acc[a].Seq < acc[b].Seq })
			for i := 1; i < len(acc); i++ {
				prev, ok := readExplained(acc, i)
				if !ok && !acc[i].Overrun {
					lost++
					add(Example{Lock: r, Ops: []Op{*prev, *acc[i]}, Faults: overlapping(h, []Op{*prev, *acc[i]}),
						Summary: fmt.Sprintf("lost update: write #%d read %d but the previous accepted write (#%d) wrote %d", acc[i].Seq, acc[i].Read, prev.Seq, prev.Write)})
				}
			}
		} else {
			byRead := map[int64]*Op{}
			for _, o := range acc {
				if o.Overrun {
					continue
				}
				if p, ok := byRead[o.Read]; ok {
					lost++
					add(Example{Lock: r, Ops: []Op{*p, *o}, Faults: overlapping(h, []Op{*p, *o}),
						Summary: fmt.Sprintf("lost update: p%d and p%d both read %d and both writes were accepted", p.Process, o.Process, o.Read)})
					continue
				}
				byRead[o.Read] = o
			}
		}
	}
	res.Count = overlaps + lost
	if res.Count > 0 {
		res.Verdict = Invalid
	}
	res.Explanation = fmt.Sprintf("%d critical sections on %d resources: %d overlapping, %d lost updates, %d overlaps fenced off by the resource", total, len(names), overlaps, lost, fenced)
	if overrun > 0 {
		res.Explanation += fmt.Sprintf(", %d sections outlasted their lease on purpose (overlaps with them expected)", overrun)
	}
	res.Elapsed = time.Since(start)
	return res
}

// readExplained reports whether acc[i] (acc in Seq order) read a value some
// accepted write before it left: the one just before it, or — passing back
// over overrun writes that returned after acc[i] began, which may have
// landed before or after its read (an overlap the overrun makes expected)
// — one of those or the first write before them. prev is the write it is
// held to when the read is not explained.
func readExplained(acc []*Op, i int) (prev *Op, ok bool) {
	for j := i - 1; j >= 0; j-- {
		if acc[j].Write == acc[i].Read {
			return acc[j], true
		}
		if !acc[j].Overrun || acc[j].Return <= acc[i].Call {
			return acc[j], false
		}
	}
	return nil, true
}

// explainOverlap explains two overlapping critical sections a (earlier) and b.
func explainOverlap(h *History, resource string, a, b *Op, opts Options) Example {
	ex := Example{Lock: resource, Summary: fmt.Sprintf("critical sections of p%d and p%d overlap in time", a.Process, b.Process)}
	ga := lastGrant(h, a.Lock, a.Process, a.Call)
	gb := lastGrant(h, b.Lock, b.Process, b.Call)
	for _, o := range []*Op{ga, gb, a, b} {
		if o != nil {
			ex.Ops = append(ex.Ops, *o)
		}
	}
	sort.SliceStable(ex.Ops, func(i, j int) bool { return ex.Ops[i].Call < ex.Ops[j].Call })
	ex.Faults = overlapping(h, ex.Ops)
	var e holdEnd
	switch {
	case ga != nil && gb != nil:
		_, _, e, ex.Cause = grantCause(ga, gb, ex.Faults, h.horizon(), opts)
	case ga != nil:
		e = holdCouldEnd(ga, b, ex.Faults, h.horizon(), opts)
		ex.Cause = e.verdict()
	default:
		return ex
	}
	ex.LeaseCouldExpire, ex.HoldCouldBeLost = e.lease, e.lost != nil
	return ex
}

// CheckFences checks fencing tokens. On every resource, accepted writes
// carry strictly increasing tokens: in the resource's order (Seq) when
// recorded, otherwise for every pair in real-time order; equal tokens are
// allowed only for writes of the same process (one hold). On every lock, a
// grant that starts a hold carries a token greater than that of every hold
// granted (returned) before it was requested.
func CheckFences(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckFencing, Verdict: Valid}
	by, names := sectionsByResource(h)
	writes, grants := 0, 0
	check := func(name, what string, ops []*Op, strict bool) {
		for _, pair := range fenceViolations(ops, strict) {
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				a, b := pair[0], pair[1]
				res.Examples = append(res.Examples, Example{Lock: name, Ops: []Op{*a, *b}, Faults: overlapping(h, []Op{*a, *b}),
					Summary: fmt.Sprintf("token goes backwards: %s with token %d by p%d came after token %d by p%d", what, b.Token, b.Process, a.Token, a.Process),
					Cause:   "fencing tokens must strictly increase: the token source or the resource's token check is broken"})
			}
		}
	}
	for _, r := range names {
		var acc []*Op
		for _, o := range by[r] {
			if o.Outcome == OK && o.Token != 0 {
				acc = append(acc, o)
			}
		}
		writes += len(acc)
		check(r, "accepted write", acc, false)
	}
	for _, l := range lockNames(h) {
		g := firstGrants(h, l)
		var tok []*Op
		for _, o := range g {
			if o.Token != 0 {
				tok = append(tok, o)
			}
		}
		grants += len(tok)
		check(l, "grant", tok, true)
	}
	if res.Count > 0 {
		res.Verdict = Invalid
	}
	res.Explanation = fmt.Sprintf("%d accepted fenced writes and %d fenced grants: %d tokens out of order", writes, grants, res.Count)
	res.Elapsed = time.Since(start)
	return res
}

// fenceViolations returns pairs (a, b) where b should carry a larger token
// than a but does not. Without a full Seq order, only real-time order
// (a.Return < b.Call) is used. strict: equal tokens are never allowed.
func fenceViolations(ops []*Op, strict bool) [][2]*Op {
	var out [][2]*Op
	bad := func(a, b *Op) bool {
		return b.Token < a.Token || (b.Token == a.Token && (strict || a.Process != b.Process))
	}
	seq := len(ops) > 0
	for _, o := range ops {
		seq = seq && o.Seq > 0
	}
	if seq {
		s := append([]*Op(nil), ops...)
		sort.SliceStable(s, func(a, b int) bool { return s[a].Seq < s[b].Seq })
		var top *Op
		for _, o := range s {
			if top != nil && bad(top, o) {
				out = append(out, [2]*Op{top, o})
			}
			if top == nil || o.Token > top.Token {
				top = o
			}
		}
		return out
	}
	byCall := append([]*Op(nil), ops...)
	sort.SliceStable(byCall, func(a, b int) bool { return byCall[a].Call < byCall[b].Call })
	byRet := append([]*Op(nil), ops...)
	sort.SliceStable(byRet, func(a, b int) bool { return byRet[a].Return < byRet[b].Return })
	var top *Op
	j := 0
	for _, o := range byCall {
		for ; j < len(byRet) && byRet[j].Return < o.Call; j++ {
			if top == nil || byRet[j].Token > top.Token {
				top = byRet[j]
			}
		}
		if top != nil && bad(top, o) {
			out = append(out, [2]*Op{top, o})
		}
	}
	return out
}

// lockNames lists the locks of h's lock ops, sorted.
func lockNames(h *History) []string {
	seen := map[string]bool{}
	var out []string
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Kind != Section && !seen[o.Lock] {
			seen[o.Lock] = true
			out = append(out, o.Lock)
		}
	}
	sort.Strings(out)
	return out
}

// firstGrants returns the ok acquires on lock that started a hold (the
// process held nothing before), sorted by call.
func firstGrants(h *History, lock string) []*Op {
	var ops []*Op
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Lock == lock && o.Outcome == OK && (o.Kind == Acquire || o.Kind == Release || o.Kind == Expire) {
			ops = append(ops, o)
		}
	}
	sort.SliceStable(ops, func(a, b int) bool { return ops[a].Call < ops[b].Call })
	bal := map[int]int{}
	var out []*Op
	for _, o := range ops {
		if o.Kind == Expire {
			bal[o.Process] = 0
			continue
		}
		if o.Kind == Acquire {
			if bal[o.Process] == 0 {
				out = append(out, o)
			}
			bal[o.Process]++
		} else if bal[o.Process] > 0 {
			bal[o.Process]--
		}
	}
	return out
}
