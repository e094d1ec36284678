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
	maxOps := sel.MaxOps
	if maxOps <= 0 {
		maxOps = 5000
	}
	var picked [][]porcupine.Operation
	n := 0
	lo, hi := int64(-1), int64(0)
	pick := func(seg segment) bool {
		if len(seg.ops) == 0 { // empty, or too big to draw
			return true
		}
		first, last := seg.ops[0].Call, int64(0)
		for _, op := range seg.ops {
			first, last = min(first, op.Call), max(last, op.Return)
		}
		if sel.To != 0 && (last < sel.From || first > sel.To) {
			return true
		}
		if sel.OnlyIllegal && checkOps(ctx, seg.ops) != porcupine.Illegal {
			return true
		}
		if n > 0 && n+len(seg.ops) > maxOps {
			return false
		}
		n += len(seg.ops)
		picked = append(picked, seg.ops)
		if lo < 0 || first < lo {
			lo = first
		}
		hi = max(hi, last)
		return true
	}
	// One lock's segments at a time, stopping once the page is full.
	ix := indexLocks(h)
	for _, l := range ix.locks {
		if len(sel.Locks) > 0 && !slices.Contains(sel.Locks, l) {
			continue
		}
		if !ix.segmentsOf(h, l, opts, pick) || ctx.Err() != nil {
			break
		}
	}
	// Dense, zero-based client ids for porcupine's rows.
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
	m, release := stoppable(ctx)
	defer release()
	m.Partition = func([]porcupine.Operation) [][]porcupine.Operation { return picked }
	_, info := porcupine.CheckOperationsVerbose(m, flat, 0)
	if stopReason(ctx, opts) == "interrupted" { // out of time: draw what was found
		return context.Cause(ctx)
	}
	info.AddAnnotations(faultAnnotations(h, lo, hi))
	m.Step = mutexModel.Step // the drawing replays the linearizations found
	return porcupine.Visualize(m, info, w)
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
