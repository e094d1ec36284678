package model

import (
	"context"
	"io"
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
)

// HTMLOptions selects what WriteHTML draws. porcupine's page grows quickly
// with the number of ops (a few thousand is comfortable), so large histories
// should be narrowed to the interesting locks, time span or segments.
type HTMLOptions struct {
	// Locks limits the page to these locks (nil: all).
	Locks []string
	// From and To limit it to segments overlapping [From, To] (To 0: no limit).
	From, To int64
	// OnlyIllegal keeps only segments that are not linearizable.
	OnlyIllegal bool
	// MaxOps stops adding segments once this many ops are drawn (0: 5000).
	MaxOps int
}

// WriteHTML writes porcupine's interactive timeline of h's lock ops (one
// partition per lock segment, the longest linearizations found, states
// described as lock holders) to w. Fault windows that overlap the drawn span
// are added as porcupine annotations, one row per fault name. Each segment's
// check is bounded by opts.Timeout. A history that fails History.Validate is
// refused with its error (porcupine cannot draw it).
func WriteHTML(w io.Writer, h *History, opts Options, sel HTMLOptions) error {
	return WriteHTMLContext(context.Background(), w, h, opts, sel)
}

// WriteHTMLContext is WriteHTML that gives up, writing nothing, when ctx
// is cancelled (its error is then ctx's cause); opts.Timeout bounds it as
// before.
func WriteHTMLContext(ctx context.Context, w io.Writer, h *History, opts Options, sel HTMLOptions) error {
	if err := h.Validate(); err != nil {
		return err
	}
	ctx, cancel := withTimeout(ctx, opts)
	defer cancel()
	pk := newHTMLPage(ctx, sel)
	// One lock's segments at a time, stopping once the page is full.
	ix := indexLocks(h)
	for _, l := range ix.locks {
		if len(sel.Locks) > 0 && !slices.Contains(sel.Locks, l) {
			continue
		}
		if !ix.segmentsOf(h, l, opts, pk.add) || ctx.Err() != nil {
			break
		}
	}
	flat := denseClients(pk.picked)
	m, release := stoppable(ctx)
	defer release()
	m.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return pk.picked }
	_, info := porcupine.CheckOperationsVerbose(m, flat, 0)
	if stopReason(ctx, opts) == "interrupted" { // out of time: draw what was found
		return context.Cause(ctx)
	}
	info.AddAnnotations(faultAnnotations(h, pk.lo, pk.hi))
	m.Step = mutexModel.Step // the drawing replays the linearizations found
	return porcupine.Visualize(m, info, w)
}

// htmlPage gathers the segments a history page draws: those sel selects, up
// to sel.MaxOps operations (default 5000), and the time span they cover.
type htmlPage struct {
	ctx    context.Context
	sel    HTMLOptions
	maxOps int
	picked [][]porcupine.Operation
	n      int   // operations picked
	lo, hi int64 // span of the picked segments (lo < 0: none)
}

func newHTMLPage(ctx context.Context, sel HTMLOptions) *htmlPage {
	maxOps := sel.MaxOps
	if maxOps <= 0 {
		maxOps = 5000
	}
	return &htmlPage{ctx: ctx, sel: sel, maxOps: maxOps, lo: -1}
}

// add picks seg if sel selects it and it fits; false once the page is full.
func (p *htmlPage) add(seg segment) bool {
	if len(seg.ops) == 0 { // empty, or too big to draw
		return true
	}
	first, last := seg.ops[0].Call, int64(0)
	for _, op := range seg.ops {
		first, last = min(first, op.Call), max(last, op.Return)
	}
	if p.sel.To != 0 && (last < p.sel.From || first > p.sel.To) {
		return true
	}
	if p.sel.OnlyIllegal && checkOps(p.ctx, seg.ops) != porcupine.Illegal {
		return true
	}
	if p.n > 0 && p.n+len(seg.ops) > p.maxOps {
		return false
	}
	p.n += len(seg.ops)
	p.picked = append(p.picked, seg.ops)
	if p.lo < 0 || first < p.lo {
		p.lo = first
	}
	p.hi = max(p.hi, last)
	return true
}

// denseClients renumbers the picked operations' client ids 0, 1, ... in
// order (porcupine's rows) and returns them in one slice.
func denseClients(picked [][]porcupine.Operation) []porcupine.Operation {
	var procs []int
	seen := map[int]bool{}
	for _, ops := range picked {
		for _, op := range ops {
			if !seen[op.ClientId] {
				seen[op.ClientId] = true
				procs = append(procs, op.ClientId)
			}
		}
	}
	sort.Ints(procs)
	row := make(map[int]int, len(procs))
	for i, p := range procs {
		row[p] = i
	}
	var flat []porcupine.Operation
	for _, ops := range picked {
		for i := range ops {
			ops[i].ClientId = row[ops[i].ClientId]
		}
		flat = append(flat, ops...)
	}
	return flat
}

// faultAnnotations turns the fault windows overlapping [lo, hi] into
// porcupine annotations.
func faultAnnotations(h *History, lo, hi int64) []porcupine.Annotation {
	horizon := h.horizon()
	var out []porcupine.Annotation
	for _, f := range h.Faults {
		end := f.end(horizon)
		if lo >= 0 && (end < lo || f.Start > hi) {
			continue
		}
		desc := f.Name
		if f.Target != "" {
			desc += " " + f.Target
		}
		out = append(out, porcupine.Annotation{
			Tag:             "fault: " + f.Name,
			Start:           f.Start,
			End:             end,
			Description:     desc,
			Details:         f.String(),
			BackgroundColor: "#f6c6c6",
		})
	}
	return out
}
