package results

import (
	"cmp"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// encodeFaults appends h's fault windows in start order. A window that
// never healed ends at the end of the history (Open). A window that names
// its processes gets a band on each lane where one of them ran, over the
// part of the window that meets the process's span there; one that names
// none acted on every process (All).
func (d *timelineData) encodeFaults(h *model.History, lanes *laneMap) {
	d.Faults = make([]timelineFault, 0, len(h.Faults))
	for _, f := range h.Faults {
		tf := timelineFault{Name: f.Name, Target: f.Target, Procs: f.Procs, Start: f.Start, End: f.End}
		if f.End == 0 || f.End < f.Start {
			tf.End, tf.Open = max(d.Span[1], f.Start), true
		}
		tf.All = len(f.Procs) == 0
		for li, l := range lanes.lanes {
			for i, p := range l.Procs {
				from, to := max(tf.Start, l.Spans[2*i]), min(tf.End, l.Spans[2*i+1])
				if slices.Contains(f.Procs, p) && from <= to {
					tf.Bands = append(tf.Bands, [3]int64{int64(li), from, to})
				}
			}
		}
		d.Faults = append(d.Faults, tf)
	}
	slices.SortStableFunc(d.Faults, func(a, b timelineFault) int { return cmp.Compare(a.Start, b.Start) })
}

// encodeFindings appends every example of every checker's result, placed
// over its ops (order maps an op of h to its record in d.Ops). An example
// whose ops are not in h (a checker quoting an op it derived) keeps the
// span of its ops all the same.
func (d *timelineData) encodeFindings(h *model.History, rep model.Report, order []int, lockIx map[string]int) {
	pos := make(map[model.Op]int, len(h.Ops))
	for i, o := range h.Ops {
		if _, dup := pos[o]; !dup {
			pos[o] = order[i]
		}
	}
	d.Findings = []timelineFinding{}
	for _, r := range rep.Results {
		for _, e := range r.Examples {
			d.Findings = append(d.Findings, newFinding(r, e, pos, lockIx))
		}
	}
}

// newFinding is example e of result r, placed over its ops.
func newFinding(r model.Result, e model.Example, pos map[model.Op]int, lockIx map[string]int) timelineFinding {
	f := timelineFinding{
		Checker: r.Checker, Verdict: string(r.Verdict), Lock: -1, Summary: e.Summary, Cause: e.Cause,
		Class: string(e.Class), Allowed: e.AllowedBy, Beyond: e.Beyond, From: -1, To: -1,
	}
	if i, ok := lockIx[e.Lock]; ok {
		f.Lock = i
	}
	for _, o := range e.Ops {
		if f.From < 0 {
			f.From, f.To = o.Call, o.Return
		}
		f.From, f.To = min(f.From, o.Call), max(f.To, o.Return)
		if i, ok := pos[o]; ok {
			f.Ops = append(f.Ops, i)
		}
		if f.Lock < 0 {
			if i, ok := lockIx[o.Lock]; ok {
				f.Lock = i
			}
		}
	}
	if f.From < 0 && len(e.Faults) > 0 { // no ops: the faults it names
		f.From, f.To = e.Faults[0].Start, max(e.Faults[0].End, e.Faults[0].Start)
	}
	return f
}
