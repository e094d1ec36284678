package model

import (
	"context"
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
// wrote, if its write was accepted. Every overlap is classified (could the
// first hold have ended under the faults?), the first
// Options.MaxExamples are explained in full, and the time it takes grows
// as n log n in the history's ops.
func CheckMutex(h *History, opts Options) Result {
	ctx, cancel := withTimeout(context.Background(), opts)
	defer cancel()
	return checkMutex(ctx, h, opts)
}

// mutexTally counts what checkMutex found.
type mutexTally struct {
	overlaps, expected, lost, fenced, overrun, total int
}

// checkMutex is CheckMutex bounded by ctx.
func checkMutex(ctx context.Context, h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckMutualExclusion, Verdict: Valid}
	by, names := sectionsByResource(h)
	x := newExplainer(h, opts)
	var t mutexTally
	for _, r := range names {
		if ctx.Err() != nil {
			break
		}
		ops := by[r]
		t.total += len(ops)
		res.Examples = append(res.Examples, overlapsOf(ctx, x, r, ops, &t, opts.maxExamples()-len(res.Examples))...)
		res.Examples = append(res.Examples, lostUpdates(x, r, ops, &t, opts.maxExamples()-len(res.Examples))...)
	}
	res.Count = t.overlaps + t.lost
	if res.Count > 0 {
		res.Verdict = Invalid
	}
	res.Explanation = fmt.Sprintf("%d critical sections on %d resources: %d overlapping, %d lost updates, %d overlaps fenced off by the resource", t.total, len(names), t.overlaps, t.lost, t.fenced)
	if t.overrun > 0 {
		res.Explanation += fmt.Sprintf(", %d sections outlasted their lease on purpose (overlaps with them expected)", t.overrun)
	}
	if t.overlaps > 0 {
		res.Explanation += fmt.Sprintf("; of the overlaps, %d could follow from a hold that ended under the faults (expected) and %d could not", t.expected, t.overlaps-t.expected)
	}
	if why := stopReason(ctx, opts); why != "" && res.Verdict == Valid {
		res = stoppedResult(CheckMutualExclusion, why)
	}
	res.Elapsed = time.Since(start)
	return res
}

// overlapsOf finds the overlapping sections of one resource (ops sorted by
// call), sweeping by call and remembering the live section that reaches
// furthest. It classifies every overlap and returns the explanations of the
// first keep.
func overlapsOf(ctx context.Context, x *explainer, r string, ops []*Op, t *mutexTally, keep int) []Example {
	var out []Example
	var reach, reachW *Op // the live section that reaches furthest; the furthest non-read one
	for i, o := range ops {
		if i%4096 == 0 && ctx.Err() != nil {
			return out
		}
		if o.Overrun {
			t.overrun++ // outlasted its lease on purpose: overlaps expected
			continue
		}
		if a := conflicting(reach, reachW, o); a != nil {
			if a.Outcome == Fail || o.Outcome == Fail {
				t.fenced++
			} else {
				t.overlaps++
				e := x.explainOverlap(r, a, o, len(out) < keep)
				if e.LeaseCouldExpire || e.HoldCouldBeLost {
					t.expected++
				}
				if e.Ops != nil {
					out = append(out, e)
				}
			}
		}
		if o.Outcome != Fail && (reach == nil || o.Return > reach.Return) {
			reach = o
		}
		if o.Outcome != Fail && o.Mode != ModeRead && (reachW == nil || o.Return > reachW.Return) {
			reachW = o
		}
	}
	return out
}

// conflicting returns the earlier section o overlaps against the rules of
// shared holds, or nil: sections under a read hold (Mode read) may overlap
// each other; any other section overlaps nobody else's.
func conflicting(reach, reachW, o *Op) *Op {
	overlaps := func(a *Op) bool { return a != nil && a.Process != o.Process && o.Call < a.Return }
	switch {
	case o.Mode != ModeRead && overlaps(reach):
		return reach
	case overlaps(reachW):
		return reachW
	}
	return nil
}

// lostUpdates finds the lost updates among one resource's accepted writes
// and returns examples of the first keep.
func lostUpdates(x *explainer, r string, ops []*Op, t *mutexTally, keep int) []Example {
	var out []Example
	add := func(a, b *Op, summary string) {
		t.lost++
		if len(out) < keep {
			out = append(out, Example{Lock: r, Ops: []Op{*a, *b}, Faults: x.faults([]Op{*a, *b}), Summary: summary, Shape: ShapeTokenBackwards})
		}
	}
	var acc []*Op
	withSeq := true
	for _, o := range ops {
		if o.Outcome == OK && o.Mode != ModeRead { // a read section writes nothing
			acc = append(acc, o)
			withSeq = withSeq && o.Seq > 0
		}
	}
	if withSeq {
		sort.SliceStable(acc, func(a, b int) bool { return acc[a].Seq < acc[b].Seq })
		for i := 1; i < len(acc); i++ {
			if prev, ok := readExplained(acc, i); !ok && !acc[i].Overrun {
				add(prev, acc[i], fmt.Sprintf("lost update: write #%d read %d but the previous accepted write (#%d) wrote %d", acc[i].Seq, acc[i].Read, prev.Seq, prev.Write))
			}
		}
		return out
	}
	byRead := map[int64]*Op{}
	for _, o := range acc {
		if o.Overrun {
			continue
		}
		if p, ok := byRead[o.Read]; ok {
			add(p, o, fmt.Sprintf("lost update: p%d and p%d both read %d and both writes were accepted", p.Process, o.Process, o.Read))
			continue
		}
		byRead[o.Read] = o
	}
	return out
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

// explainOverlap explains two overlapping critical sections a (earlier)
// and b: whether the hold a ran under could have ended before b's began.
// full: the example also lists the grants and the faults; otherwise only
// its flags are set and Ops is nil.
func (x *explainer) explainOverlap(resource string, a, b *Op, full bool) Example {
	ex := Example{Lock: resource, Shape: ShapeDoubleGrant}
	ga := x.lastGrant(a.Lock, a.Process, a.Call)
	gb := x.lastGrant(b.Lock, b.Process, b.Call)
	var ops []Op
	for _, o := range []*Op{ga, gb, a, b} {
		if o != nil {
			ops = append(ops, *o)
		}
	}
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Call < ops[j].Call })
	faults := x.faults(ops)
	if full {
		ex.Summary = fmt.Sprintf("critical sections of p%d and p%d overlap in time", a.Process, b.Process)
		ex.Ops, ex.Faults = ops, faults
	}
	var e holdEnd
	switch {
	case ga != nil && gb != nil:
		_, _, e, ex.Cause = grantCause(ga, gb, faults, x.horizon, x.opts)
	case ga != nil:
		e = holdCouldEnd(ga, b, faults, x.horizon, x.opts)
		ex.Cause = e.verdict()
	default:
		return ex
	}
	ex.LeaseCouldExpire, ex.HoldCouldBeLost, ex.AllowedBy = e.lease, e.lost != nil, e.allowedBy
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
				res.Examples = append(res.Examples, Example{Lock: name, Shape: ShapeTokenBackwards, Ops: []Op{*a, *b}, Faults: overlapping(h, []Op{*a, *b}),
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
	locks := groupLockOps(h)
	for _, l := range locks.names {
		g := firstGrants(locks.ops[l])
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

// firstGrants returns the ok acquires among lockOps (one lock's, in
// history order) that started a hold (the process held nothing before),
// sorted by call.
func firstGrants(lockOps []*Op) []*Op {
	var ops []*Op
	for _, o := range lockOps {
		if o.Outcome == OK && (o.Kind == Acquire || o.Kind == Release || o.Kind == Expire) {
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
