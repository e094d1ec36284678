package model

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// ProcessWaits summarises one process's acquires.
type ProcessWaits struct {
	Process  int
	Acquires int
	OK       int
	Failed   int // fail: gave up (TryLock wait ran out, ctx ended)
	Unknown  int // info
	MaxWait  time.Duration
	// Starved is true when the process made blocking acquires and none was
	// granted.
	Starved bool
}

// Waits summarises every process's acquires, ordered by process.
func Waits(h *History) []ProcessWaits {
	by := map[int]*ProcessWaits{}
	blocking := map[int]bool{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Acquire {
			continue
		}
		w := by[o.Process]
		if w == nil {
			w = &ProcessWaits{Process: o.Process}
			by[o.Process] = w
		}
		w.Acquires++
		switch o.Outcome {
		case OK:
			w.OK++
		case Fail:
			w.Failed++
		case Info:
			w.Unknown++
		}
		blocking[o.Process] = blocking[o.Process] || o.Blocking
		w.MaxWait = max(w.MaxWait, time.Duration(o.Return-o.Call))
	}
	out := make([]ProcessWaits, 0, len(by))
	for p, w := range by {
		w.Starved = blocking[p] && w.OK == 0
		out = append(out, *w)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Process < out[b].Process })
	return out
}

// CheckLive summarises waits: acquires, grants, give-ups, the longest wait
// per process and starved processes, and bounds them (Options.MaxWait):
//   - MaxWait > 0: an acquire that waited longer, less what the faults
//     that may hold up its process excuse (excusedWait), is a violation;
//   - WaitDerived (the default): an acquire that spent longer than
//     DefaultWaitLeases of its lock's longest lease on a free lock (no other
//     process may have held it, no window open of a fault that may hold up
//     its process) is a violation: a lost wake-up;
//   - WaitOff: no bound.
//
// FreeWait > 0 adds a bound on each acquire's longest continuous stretch of
// waiting on a free lock outside faults.
//
// The explanation states the bound used.
func CheckLive(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckLiveness, Verdict: Valid}
	ws := Waits(h)
	var acq, ok, failed, unknown, starved int
	var longest time.Duration
	for _, w := range ws {
		acq += w.Acquires
		ok += w.OK
		failed += w.Failed
		unknown += w.Unknown
		longest = max(longest, w.MaxWait)
		if w.Starved {
			starved++
		}
	}
	top := append([]ProcessWaits(nil), ws...)
	sort.SliceStable(top, func(a, b int) bool { return top[a].MaxWait > top[b].MaxWait })
	var parts []string
	for _, w := range top[:min(3, len(top))] {
		parts = append(parts, fmt.Sprintf("p%d %s", w.Process, w.MaxWait))
	}
	res.Explanation = fmt.Sprintf("%d acquires by %d processes: %d granted, %d gave up, %d unknown; %d starved; longest waits: %s",
		acq, len(ws), ok, failed, unknown, starved, strings.Join(parts, ", "))
	bound(h, opts, &res)
	res.Elapsed = time.Since(start)
	return res
}

// bound applies opts.MaxWait (see CheckLive) to res.
func bound(h *History, opts Options, res *Result) {
	switch {
	case opts.MaxWait.Off():
		res.Explanation += "; no bound on waits (off)"
	case opts.MaxWait.Derived() && opts.TTLWakeups:
		bounds, n, bad := checkTTLStretches(h, opts)
		res.Count, res.Examples = n, bad
		res.Explanation += "; bound: " + describeTTLBounds(bounds)
		if n > 0 {
			res.Explanation += fmt.Sprintf("; %d waits over it", n)
		}
		if res.Count > 0 {
			res.Verdict = Invalid
		}
		return
	case opts.MaxWait.Derived():
		bounds, bad, n := checkFreeWaits(h, opts)
		res.Count, res.Examples = n, bad
		res.Explanation += "; bound: " + describeBounds(bounds)
		if n > 0 {
			res.Explanation += fmt.Sprintf("; %d waits over the bound on a free lock outside faults", n)
		}
	default:
		res.Explanation += fmt.Sprintf("; bound: %s per acquire outside faults (set)", opts.MaxWait)
		res.Count, res.Examples = checkTotalWaits(h, opts)
		if res.Count > 0 {
			res.Explanation += fmt.Sprintf("; %d waits over %s outside faults", res.Count, opts.MaxWait)
		}
	}
	if opts.FreeWait > 0 {
		n, bad := checkFreeStretches(h, opts)
		res.Explanation += fmt.Sprintf("; and %s of continuous waiting on a free lock outside faults", opts.freeStretchBound())
		if n > 0 {
			res.Explanation += fmt.Sprintf(" (%d over it)", n)
		}
		res.Count += n
		for _, e := range bad {
			if len(res.Examples) < opts.maxExamples() {
				res.Examples = append(res.Examples, e)
			}
		}
	}
	if res.Count > 0 {
		res.Verdict = Invalid
	}
}

// checkTotalWaits counts the acquires that waited longer than
// opts.MaxWait, not counting what the faults that may hold up their
// process excuse (excusedWait): a fault elsewhere excuses nothing, one
// that allows nothing only its own window and AfterNoneFault.
func checkTotalWaits(h *History, opts Options) (n int, bad []Example) {
	horizon := h.horizon()
	bound := opts.MaxWait.Duration()
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Acquire || time.Duration(o.Return-o.Call) <= bound {
			continue
		}
		excused := time.Duration(excusedWait(h, o, horizon, opts))
		if time.Duration(o.Return-o.Call)-excused <= bound {
			continue
		}
		n++
		if len(bad) < opts.maxExamples() {
			bad = append(bad, Example{Lock: o.Lock, Ops: []Op{*o}, Shape: ShapeLongWait, Faults: overlappingFaults(h.Faults, []Op{*o}, horizon),
				Summary: waitedSummary(o, excused, bound)})
		}
	}
	return n, bad
}

// waitedSummary says that o waited longer than bound, excused of it
// excused by faults.
func waitedSummary(o *Op, excused, bound time.Duration) string {
	waited := time.Duration(o.Return - o.Call)
	if excused == 0 {
		return fmt.Sprintf("p%d waited %s (> %s) with no fault on its process", o.Process, waited, bound)
	}
	return fmt.Sprintf("p%d waited %s, %s of it beyond what the faults on its process excuse (> %s)", o.Process, waited, waited-excused, bound)
}

// describeBounds renders the derived liveness bounds, e.g. "3s (lock s) of
// free lock per acquire outside faults (2 leases, derived from the run's
// leases)".
func describeBounds(bounds map[string]time.Duration) string {
	if len(bounds) == 0 {
		return fmt.Sprintf("%d leases of free lock per acquire outside faults (no acquires)", DefaultWaitLeases)
	}
	by := map[time.Duration][]string{}
	var ds []time.Duration
	var unbounded []string
	for l, d := range bounds {
		if d < 0 {
			unbounded = append(unbounded, l)
			continue
		}
		if by[d] == nil {
			ds = append(ds, d)
		}
		by[d] = append(by[d], l)
	}
	sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
	var parts []string
	for _, d := range ds {
		names := by[d]
		sort.Strings(names)
		what := "lock " + names[0]
		if len(names) > 1 {
			what = fmt.Sprintf("%d locks", len(names))
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", d, what))
	}
	s := fmt.Sprintf("%s of free lock per acquire outside faults (%d leases, derived from the run's leases)",
		strings.Join(parts, ", "), DefaultWaitLeases)
	if len(ds) == 0 {
		s = "none"
	}
	if len(unbounded) > 0 {
		sort.Strings(unbounded)
		s += fmt.Sprintf("; NOT bounded on %s: its lease leaves no room below the op timeout, so a waiter that sits out a whole op on a free lock passes", strings.Join(unbounded, ", "))
	}
	return s
}
