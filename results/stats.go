package results

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/lockcheck/lockcheck/model"
)

// Counts counts ops by outcome.
type Counts struct {
	OK   int `json:"ok"`
	Fail int `json:"fail"`
	Info int `json:"info"`
}

// Total is OK + Fail + Info.
func (c Counts) Total() int { return c.OK + c.Fail + c.Info }

func (c *Counts) add(o model.Outcome) {
	switch o {
	case model.OK:
		c.OK++
	case model.Fail:
		c.Fail++
	case model.Info:
		c.Info++
	}
}

// Latency summarises a set of op durations (Return - Call). Percentiles come
// from an HdrHistogram with 3 significant digits above 1 µs; Max and Mean
// are exact.
type Latency struct {
	Count int           `json:"count"`
	P50   time.Duration `json:"p50_ns"`
	P99   time.Duration `json:"p99_ns"`
	Max   time.Duration `json:"max_ns"`
	Mean  time.Duration `json:"mean_ns"`
}

// ProcessStats is one logical process's acquires.
type ProcessStats struct {
	Process int `json:"process"`
	// Acquires counts the process's acquires by outcome.
	Acquires Counts `json:"acquires"`
	// Wait is how long its acquires that returned a definite answer (ok or
	// fail) took: the time it spent waiting for the lock.
	Wait Latency `json:"wait"`
	// Starved is true when the process made blocking acquires and none was
	// granted (as in model.Waits).
	Starved bool `json:"starved,omitempty"`
}

// Stats are the figures of one subject's run, computed from its history.
type Stats struct {
	// Span is the run's length: from the first op's call to the last
	// definite return (info ops count by their call).
	Span time.Duration `json:"span_ns"`
	// Ops counts every acquire, release and section by outcome.
	Ops Counts `json:"ops"`
	// ByKind splits Ops by kind (acquire, release, section).
	ByKind map[model.Kind]Counts `json:"by_kind"`
	// Abandons counts processes that stopped without unlocking.
	Abandons int `json:"abandons,omitempty"`
	// Expiries counts holds let run out on purpose (model.Expire ops).
	Expiries int `json:"expiries,omitempty"`
	// Grants is the number of ok acquires (reentrant ones included).
	Grants int `json:"grants"`
	// OpsPerSec and GrantsPerSec are Ops.Total() and Grants over Span.
	OpsPerSec    float64 `json:"ops_per_sec"`
	GrantsPerSec float64 `json:"grants_per_sec"`
	// Acquire is the latency of granted acquires: call to grant.
	Acquire Latency `json:"acquire"`
	// AcquireFail is the latency of acquires that gave up (fail).
	AcquireFail Latency `json:"acquire_fail"`
	// Release is the latency of ok releases.
	Release Latency `json:"release"`
	// Processes are per-process acquire figures, ordered by process. The
	// slowest process's Wait.Max is the starvation figure.
	Processes []ProcessStats `json:"processes,omitempty"`
	// Faults is the number of fault windows in the history.
	Faults int `json:"faults,omitempty"`
	// Handoffs counts how locks passed between owners, within a client
	// process and across processes (model.CountHandoffs).
	Handoffs model.Handoffs `json:"handoffs"`
}

const (
	hdrLowest  = int64(time.Microsecond)
	hdrHighest = int64(time.Hour)
)

// latencies accumulates durations into an HdrHistogram plus exact max/mean.
type latencies struct {
	h   *hdrhistogram.Histogram
	n   int
	sum float64
	max int64
}

func newLatencies() *latencies {
	return &latencies{h: hdrhistogram.New(hdrLowest, hdrHighest, 3)}
}

func (l *latencies) record(d int64) {
	d = max(d, 0)
	// Values outside the histogram's range are clamped; Max stays exact.
	_ = l.h.RecordValue(min(max(d, hdrLowest), hdrHighest))
	l.n++
	l.sum += float64(d)
	l.max = max(l.max, d)
}

func (l *latencies) summary() Latency {
	if l.n == 0 {
		return Latency{}
	}
	return Latency{
		Count: l.n,
		P50:   time.Duration(min(l.h.ValueAtQuantile(50), l.max)),
		P99:   time.Duration(min(l.h.ValueAtQuantile(99), l.max)),
		Max:   time.Duration(l.max),
		Mean:  time.Duration(math.Round(l.sum / float64(l.n))),
	}
}

// exactLatency summarises a small sample exactly (nearest-rank percentiles).
func exactLatency(ds []int64) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum float64
	for _, d := range s {
		sum += float64(d)
	}
	rank := func(q float64) int64 {
		i := int(math.Ceil(q*float64(len(s)))) - 1
		return s[min(max(i, 0), len(s)-1)]
	}
	return Latency{
		Count: len(s),
		P50:   time.Duration(rank(0.50)),
		P99:   time.Duration(rank(0.99)),
		Max:   time.Duration(s[len(s)-1]),
		Mean:  time.Duration(math.Round(sum / float64(len(s)))),
	}
}

// definiteReturn reports the op's return time, and whether it is a real one:
// info ops may record an unknown return (harnesses that follow etcd write
// math.MaxInt64), so their times only count by their call.
func definiteReturn(o *model.Op) (int64, bool) {
	if o.Outcome == model.Info || o.Return < o.Call || o.Return == math.MaxInt64 {
		return o.Call, false
	}
	return o.Return, true
}

// span returns the first call and the last definite return of h's ops.
func span(h *model.History) (first, last int64, ok bool) {
	for i := range h.Ops {
		o := &h.Ops[i]
		r, _ := definiteReturn(o)
		if !ok {
			first, last, ok = o.Call, r, true
			continue
		}
		first = min(first, o.Call)
		last = max(last, r)
	}
	return first, last, ok
}

// ComputeStats computes h's figures. It does not modify h. A nil or empty
// history gives zero Stats (with a non-nil ByKind).
func ComputeStats(h *model.History) Stats {
	st := Stats{ByKind: map[model.Kind]Counts{}}
	if h == nil {
		return st
	}
	st.Faults = len(h.Faults)
	st.Handoffs = model.CountHandoffs(h)
	acq, acqFail, rel := newLatencies(), newLatencies(), newLatencies()
	type proc struct {
		acquires Counts
		waits    []int64
		blocking bool
	}
	procs := map[int]*proc{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == model.Abandon {
			st.Abandons++
			continue
		}
		if o.Kind == model.Expire {
			st.Expiries++ // the server's act, not an op of the client
			continue
		}
		st.Ops.add(o.Outcome)
		c := st.ByKind[o.Kind]
		c.add(o.Outcome)
		st.ByKind[o.Kind] = c
		d := o.Return - o.Call
		switch o.Kind {
		case model.Acquire:
			p := procs[o.Process]
			if p == nil {
				p = &proc{}
				procs[o.Process] = p
			}
			p.acquires.add(o.Outcome)
			p.blocking = p.blocking || o.Blocking
			switch o.Outcome {
			case model.OK:
				st.Grants++
				acq.record(d)
				p.waits = append(p.waits, d)
			case model.Fail:
				acqFail.record(d)
				p.waits = append(p.waits, d)
			}
		case model.Release:
			if o.Outcome == model.OK {
				rel.record(d)
			}
		}
	}
	st.Acquire, st.AcquireFail, st.Release = acq.summary(), acqFail.summary(), rel.summary()
	for id, p := range procs {
		st.Processes = append(st.Processes, ProcessStats{
			Process:  id,
			Acquires: p.acquires,
			Wait:     exactLatency(p.waits),
			Starved:  p.blocking && p.acquires.OK == 0,
		})
	}
	sort.Slice(st.Processes, func(a, b int) bool { return st.Processes[a].Process < st.Processes[b].Process })
	if first, last, ok := span(h); ok && last > first {
		st.Span = time.Duration(last - first)
		secs := st.Span.Seconds()
		st.OpsPerSec = float64(st.Ops.Total()) / secs
		st.GrantsPerSec = float64(st.Grants) / secs
	}
	return st
}

// SlowestProcess returns the process whose longest acquire wait is the
// longest (the starvation figure), and false when no process acquired.
func (s Stats) SlowestProcess() (ProcessStats, bool) {
	var best ProcessStats
	found := false
	for _, p := range s.Processes {
		if !found || p.Wait.Max > best.Wait.Max {
			best, found = p, true
		}
	}
	return best, found
}
