package model

import (
	"fmt"
	"sort"
	"time"
)

// CheckFair checks FIFO order on fair locks. Request a overtakes request b
// when a's enqueue completed before b was issued (a.Enqueued < b.Call), both
// were granted (ok acquires that started a hold), and b was granted first.
// Under mutual exclusion b was granted first exactly when b returned before
// a did (a's holder releases only after a returns). Requests that gave up
// (fail) or were retired (info) are exempt. Overtakes of a request whose wait
// overlapped a fault window are counted but do not make the verdict Invalid:
// a waiter that stalls is evicted after threadWaitTime and loses its place.
func CheckFair(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckFairness, Verdict: Valid}
	horizon := h.horizon()
	clean, faulted, requests := 0, 0, 0
	locks := groupLockOps(h)
	var cleanEx, faultedEx []Example
	for _, l := range locks.names {
		grants := firstGrants(locks.ops[l])
		var queued []*Op
		for _, o := range grants {
			if o.Enqueued != 0 {
				queued = append(queued, o)
			}
		}
		requests += len(queued)
		counts := countOvertakes(queued, grants)
		for i, a := range queued {
			if counts[i] == 0 {
				continue
			}
			var during []Fault
			for _, f := range h.Faults {
				if f.Start <= a.Return && f.end(horizon) >= a.Enqueued {
					during = append(during, f)
				}
			}
			if len(during) > 0 {
				faulted += counts[i]
				if len(faultedEx) < opts.maxExamples() {
					faultedEx = append(faultedEx, overtakeExample(l, a, grants, counts[i], during))
				}
			} else {
				clean += counts[i]
				if len(cleanEx) < opts.maxExamples() {
					cleanEx = append(cleanEx, overtakeExample(l, a, grants, counts[i], nil))
				}
			}
		}
	}
	// The overtakes that make the verdict come first: an excused one shown
	// above them would read as the reason for an Invalid verdict.
	res.Examples = append(cleanEx, faultedEx...)
	if len(res.Examples) > opts.maxExamples() {
		res.Examples = res.Examples[:opts.maxExamples()]
	}
	res.Count = clean + faulted
	if clean > 0 {
		res.Verdict = Invalid
	}
	res.Explanation = fmt.Sprintf("%d queued requests granted: %d overtakes without a fault, %d during faults", requests, clean, faulted)
	res.Elapsed = time.Since(start)
	return res
}

// countOvertakes returns, for each queued request a, the number of grants b
// of other processes with a.Enqueued < b.Call and b.Return < a.Return, in
// O(n log n) with a Fenwick tree over return ranks.
func countOvertakes(queued, grants []*Op) []int {
	rets := make([]int64, len(grants))
	for i, b := range grants {
		rets[i] = b.Return
	}
	sort.Slice(rets, func(a, b int) bool { return rets[a] < rets[b] })
	rank := func(t int64) int { return sort.Search(len(rets), func(i int) bool { return rets[i] >= t }) } // # of returns < t
	tree := make([]int, len(rets)+1)
	add := func(i int) {
		for i++; i < len(tree); i += i & -i {
			tree[i]++
		}
	}
	sum := func(n int) int { // count of inserted with rank < n
		s := 0
		for ; n > 0; n -= n & -n {
			s += tree[n]
		}
		return s
	}
	byCall := append([]*Op(nil), grants...)
	sort.Slice(byCall, func(a, b int) bool { return byCall[a].Call > byCall[b].Call })
	idx := make([]int, len(queued))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return queued[idx[a]].Enqueued > queued[idx[b]].Enqueued })
	out := make([]int, len(queued))
	j := 0
	for _, i := range idx {
		a := queued[i]
		for ; j < len(byCall) && byCall[j].Call > a.Enqueued; j++ {
			add(rank(byCall[j].Return))
		}
		// The process's own later grants return after a, so they never count.
		out[i] = sum(rank(a.Return))
	}
	return out
}

// overtakeExample shows queued request a of lock l with up to two of the
// later requests that were granted before it, and whether a fault excuses it.
func overtakeExample(l string, a *Op, grants []*Op, n int, during []Fault) Example {
	ex := Example{Lock: l, Ops: []Op{*a}, Faults: during, Shape: ShapeOvertaken,
		Summary: fmt.Sprintf("p%d, queued at %s, was overtaken by %d later request(s)", a.Process, fmtTime(a.Enqueued), n)}
	for _, b := range grants {
		if b.Process != a.Process && a.Enqueued < b.Call && b.Return < a.Return {
			ex.Ops = append(ex.Ops, *b)
			if len(ex.Ops) == 3 {
				break
			}
		}
	}
	if len(during) > 0 {
		ex.Cause = "the wait overlapped a fault: the waiter may have been evicted from the queue (expected)"
	} else {
		ex.Cause = "no fault overlapped the wait: FIFO order broken"
	}
	return ex
}
