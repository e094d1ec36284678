package model

import (
	"slices"
	"sort"
)

// faultSet indexes a history's fault windows by time, so that the windows
// meeting one hold are found without scanning them all: the
// fault-allowance checker asks for every hold, and a nightly run has
// millions of holds and thousands of windows.
type faultSet struct {
	faults []Fault
	ends   []int64 // effective end of each window: a split brain's demotion (Options.splitEnd), the horizon for one never healed
	allow  []Allow // opts.allowOf of each window
	// short lists the windows of bounded length in start order; span is
	// the longest of them. long lists the others (a split brain outlives
	// its window until its demotion; one never healed lasts to the
	// horizon).
	short []int32
	span  int64
	long  []int32
}

func newFaultSet(faults []Fault, horizon int64, opts Options) *faultSet {
	fs := &faultSet{faults: faults, ends: make([]int64, len(faults)), allow: make([]Allow, len(faults))}
	for i, f := range faults {
		fs.allow[i] = opts.allowOf(f)
		fs.ends[i] = f.end(horizon)
		if fs.allow[i] == AllowSplit {
			fs.ends[i] = opts.splitEnd(fs.ends[i], horizon) // the second master outlives the window
		}
		if fs.allow[i] == AllowSplit || f.End == 0 || f.End < f.Start {
			fs.long = append(fs.long, int32(i))
			continue
		}
		fs.short = append(fs.short, int32(i))
		fs.span = max(fs.span, fs.ends[i]-f.Start)
	}
	sort.SliceStable(fs.short, func(a, b int) bool { return faults[fs.short[a]].Start < faults[fs.short[b]].Start })
	return fs
}

// meeting returns, in the history's order, the indices of the windows
// that meet [lo, hi]: Start <= hi and effective end >= lo.
func (fs *faultSet) meeting(lo, hi int64) []int32 {
	var out []int32
	for _, i := range fs.long {
		if fs.faults[i].Start <= hi && fs.ends[i] >= lo {
			out = append(out, i)
		}
	}
	from := lo - fs.span // a window that starts before cannot reach lo
	k := sort.Search(len(fs.short), func(k int) bool { return fs.faults[fs.short[k]].Start >= from })
	for ; k < len(fs.short) && fs.faults[fs.short[k]].Start <= hi; k++ {
		if i := fs.short[k]; fs.ends[i] >= lo {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// overlapping returns the windows that overlap the span of ops, as
// overlappingFaults does.
func (fs *faultSet) overlapping(ops []Op) []Fault {
	if len(ops) == 0 {
		return nil
	}
	var out []Fault
	for _, i := range fs.meetingRaw(opsSpan(ops)) {
		out = append(out, fs.faults[i])
	}
	return out
}

// meetingRaw is meeting on the windows' recorded ends (a split brain's
// window ends where it was recorded to).
func (fs *faultSet) meetingRaw(lo, hi int64) []int32 {
	var out []int32
	for _, i := range fs.meeting(lo, hi) {
		if f := fs.faults[i]; fs.allow[i] != AllowSplit || f.End == 0 || f.End < f.Start || f.End >= lo {
			out = append(out, i)
		}
	}
	return out
}
