package plots

import (
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// niceIntervals are the bucket widths plots choose from.
var niceIntervals = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
}

// maxBuckets bounds the buckets of a plot whatever its times (a given
// interval that would cut the span finer is replaced); maxTicks bounds an
// axis's labelled ticks.
const (
	maxBuckets = 10_000
	maxTicks   = 100
)

// chooseInterval picks the smallest nice bucket width that cuts span into
// at most about 60 buckets; beyond the largest, whole minutes that do.
func chooseInterval(span time.Duration) time.Duration {
	for _, iv := range niceIntervals {
		if span/iv <= 60 {
			return iv
		}
	}
	return (span/60/time.Minute + 1) * time.Minute
}

// bucket is one interval of a run.
type bucket struct {
	start    int64   // ns on the history clock
	width    int64   // ns of the bucket inside the run's span
	grants   int     // ok acquires that returned in the bucket
	fails    int     // fail acquires that returned in the bucket
	infos    int     // info ops called in the bucket
	okWaits  []int64 // latencies of ok acquires called in the bucket
	p50, p99 int64
	max      int64
}

// series cuts h into buckets of width iv from time 0 (the run's base) to the
// end of the history. Grants and fails count by return (when the answer came),
// latencies and infos by call (when the request was made).
func series(h *model.History, iv time.Duration) []bucket {
	first, last, ok := results.Span(h)
	if !ok {
		return nil
	}
	opsEnd := last
	for _, f := range h.Faults {
		last = max(last, f.Start, f.End)
	}
	w := int64(iv)
	n := int(last/w) + 1
	bs := make([]bucket, n)
	for i := range bs {
		bs[i].start = int64(i) * w
		bs[i].width = max(min(bs[i].start+w, opsEnd)-max(bs[i].start, first), 0)
	}
	at := func(t int64) *bucket { return &bs[min(max(int(t/w), 0), n-1)] }
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == model.Abandon {
			continue
		}
		if o.Outcome == model.Info {
			at(o.Call).infos++
			continue
		}
		if o.Kind != model.Acquire {
			continue
		}
		switch o.Outcome {
		case model.OK:
			at(o.Return).grants++
			b := at(o.Call)
			b.okWaits = append(b.okWaits, o.Return-o.Call)
		case model.Fail:
			at(o.Return).fails++
		}
	}
	for i := range bs {
		if l := results.ExactLatency(bs[i].okWaits); l.Count > 0 {
			bs[i].p50, bs[i].p99, bs[i].max = int64(l.P50), int64(l.P99), int64(l.Max)
		}
		bs[i].okWaits = nil
	}
	return bs
}

// faultWindow is a fault window with its open end closed at the horizon.
type faultWindow struct {
	name       string
	start, end int64
}

// faultWindows returns h's fault windows, ordered by start, with a window
// that never healed ending at the history's last time.
func faultWindows(h *model.History) []faultWindow {
	_, last, _ := results.Span(h)
	for _, f := range h.Faults {
		last = max(last, f.Start, f.End)
	}
	var out []faultWindow
	for _, f := range h.Faults {
		end := f.End
		if end == 0 || end < f.Start {
			end = last
		}
		name := f.Name
		if f.Target != "" {
			name += " " + f.Target
		}
		out = append(out, faultWindow{name: name, start: f.Start, end: end})
	}
	slices.SortStableFunc(out, func(a, b faultWindow) int { return int(min(max(a.start-b.start, -1), 1)) })
	return out
}
