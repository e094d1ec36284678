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
// per process and starved processes. It is Valid unless opts.MaxWait is set
// and an acquire that overlapped no fault window waited longer.
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
	if opts.MaxWait > 0 {
		horizon := h.horizon()
		for i := range h.Ops {
			o := &h.Ops[i]
			if o.Kind != Acquire || time.Duration(o.Return-o.Call) <= opts.MaxWait {
				continue
			}
			faulted := false
			for _, f := range h.Faults {
				faulted = faulted || (f.Start <= o.Return && f.end(horizon) >= o.Call)
			}
			if faulted {
				continue
			}
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				res.Examples = append(res.Examples, Example{Lock: o.Lock, Ops: []Op{*o},
					Summary: fmt.Sprintf("p%d waited %s (> %s) with no fault", o.Process, time.Duration(o.Return-o.Call), opts.MaxWait)})
			}
		}
		if res.Count > 0 {
			res.Verdict = Invalid
			res.Explanation += fmt.Sprintf("; %d waits over %s outside faults", res.Count, opts.MaxWait)
		}
	}
	res.Elapsed = time.Since(start)
	return res
}
