package model

import (
	"fmt"
	"slices"
)

// latchOpenedBy is when latch object ix was surely open: it had one ok
// trySetCount and no info one, and N countdowns called after that set
// returned had returned ok. false when that is not known.
func latchOpenedBy(h *History, ix []int) (int64, bool) {
	var set *Op
	for _, i := range ix {
		o := &h.Ops[i]
		if o.Kind != LatchSet || o.Outcome == Fail {
			continue
		}
		if set != nil || o.Outcome == Info {
			return 0, false
		}
		set = o
	}
	if set == nil {
		return 0, false
	}
	var downs []int64
	for _, i := range ix {
		o := &h.Ops[i]
		if o.Kind == LatchCountDown && o.Outcome == OK && o.Call > set.Return {
			downs = append(downs, o.Return)
		}
	}
	if set.N < 1 || int64(len(downs)) < set.N {
		return 0, false
	}
	slices.Sort(downs)
	return downs[set.N-1], true
}

// latchLive adds to res the awaits of latch object ix that waited on a
// surely open latch, outside the windows of the faults that hit their
// process, longer than bound.
func latchLive(h *History, name string, ix []int, bound int64, opts Options, res *Result) (waits int) {
	opened, ok := latchOpenedBy(h, ix)
	horizon := h.horizon()
	for _, i := range ix {
		w := &h.Ops[i]
		if w.Kind != LatchAwait || w.Cancelled || w.Outcome == Info || (!w.Blocking && w.Wait <= 0) {
			continue
		}
		waits++
		if !ok {
			continue
		}
		from := max(w.Call, opened)
		for _, f := range h.Faults {
			if f.hits(w.Process) && f.Start < w.Return && f.end(horizon) > from {
				from = max(from, f.end(horizon))
			}
		}
		if long := w.Return - from; long > bound {
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				res.Examples = append(res.Examples, Example{Lock: name, Class: ClassLiveness, Shape: ShapeWaitOnFree, Ops: []Op{*w},
					Summary: fmt.Sprintf("awaited %s on a latch open since %s (bound %s)", fmtDur(long), fmtTime(opened), fmtDur(bound))})
			}
		}
	}
	return waits
}
