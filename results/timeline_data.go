package results

import (
	"cmp"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// timelineData is the timeline page's data (JSON, read by timeline.js):
// compact, so that a page of a few hundred thousand ops stays small. The
// ops and the holds are flat arrays of numbers, opStride and holdStride
// numbers a record; the few fault windows and findings are objects.
type timelineData struct {
	Version int `json:"v"`
	// Span is the first and the last time of the history (ns).
	Span [2]int64 `json:"span"`
	// Locks are the locks, one row group each, in name order.
	Locks []string `json:"locks"`
	// Lanes are the rows: each lock's lanes in turn.
	Lanes []timelineLane `json:"lanes"`
	// Kinds names the op kinds of Ops ("acquire", "release(read)", ...).
	Kinds []string `json:"kinds"`
	// Errs are the error texts of Ops; Errs[0] is "" (no error).
	Errs []string `json:"errs"`
	// Ops: lane, process, kind, outcome (outcomeCode), call, duration
	// (return - call), token, error, flags (opFlag...); sorted by lane,
	// then call. Every op of the history is there once.
	Ops []int64 `json:"ops"`
	// Holds: lane, start, end, how (holdHow...); sorted by lane, then start.
	Holds []int64 `json:"holds"`
	// Faults are the fault windows, in start order.
	Faults []timelineFault `json:"faults"`
	// Findings are the checkers' examples (violations, and notable events
	// of checkers that were valid), each marked where its ops are.
	Findings []timelineFinding `json:"findings"`
}

// Strides of timelineData.Ops and timelineData.Holds.
const (
	opStride   = 9
	holdStride = 4
)

// Op flags (timelineData.Ops' last field).
const (
	opFlagBlocking  = 1 << iota // Lock rather than TryLock
	opFlagCancelled             // the process cancelled its acquire
	opFlagOverrun               // a section that outlasted its lease on purpose
	opFlagAlso                  // a multilock op: other locks moved with it
)

// How a hold ended (timelineData.Holds' last field).
const (
	holdReleased = iota // a release answered ok
	holdOpen            // it lasted to the end of the history
	holdLost            // anything else: expired, refused, retired, abandoned
)

// outcomeCode numbers an op's outcome: 0 ok, 1 fail, 2 info.
func outcomeCode(o model.Outcome) int64 {
	switch o {
	case model.OK:
		return 0
	case model.Fail:
		return 1
	}
	return 2
}

// timelineLane is one row: one lock's ops by the processes it lists, whose
// spans on the lock (first call to last return) do not overlap.
type timelineLane struct {
	Lock int `json:"lock"`
	// Procs are the lane's processes in turn; Spans holds first call and
	// last return of each, in the same order.
	Procs []int   `json:"procs"`
	Spans []int64 `json:"spans"`
}

// timelineFault is one fault window; Bands are the stretches of the lanes
// it acted on ([lane, from, to] each) when it names processes, none when it
// acted on every process (then All).
type timelineFault struct {
	Name   string     `json:"name"`
	Target string     `json:"target,omitempty"`
	Procs  []int      `json:"procs,omitempty"`
	Start  int64      `json:"start"`
	End    int64      `json:"end"`
	Open   bool       `json:"open,omitempty"`
	All    bool       `json:"all,omitempty"`
	Bands  [][3]int64 `json:"bands,omitempty"`
}

// timelineFinding is one example of a checker's, placed at [From, To] (the
// span of its ops; -1 when it has none) on its lock's rows.
type timelineFinding struct {
	Checker string `json:"checker"`
	Verdict string `json:"verdict"`
	Lock    int    `json:"lock"`
	Summary string `json:"summary"`
	Cause   string `json:"cause,omitempty"`
	Class   string `json:"class,omitempty"`
	Allowed string `json:"allowed,omitempty"`
	Beyond  bool   `json:"beyond,omitempty"`
	From    int64  `json:"from"`
	To      int64  `json:"to"`
	// Ops index the example's ops in timelineData.Ops (by record).
	Ops []int `json:"ops,omitempty"`
}

// encodeTimeline encodes h and rep's findings as the page's data.
func encodeTimeline(h *model.History, rep model.Report) *timelineData {
	d := &timelineData{Version: 1, Span: historySpan(h), Errs: []string{""}}
	d.Locks = lockNames(h)
	lockIx := indexOf(d.Locks)
	lanes := assignLanes(h, d.Locks)
	d.Lanes = lanes.lanes
	order := d.encodeOps(h, lanes, lockIx)
	d.encodeHolds(model.Holds(h), lanes, lockIx)
	d.encodeFaults(h, lanes)
	d.encodeFindings(h, rep, order, lockIx)
	return d
}

// historySpan is the first call and the last time of h.
func historySpan(h *model.History) [2]int64 {
	if len(h.Ops) == 0 && len(h.Faults) == 0 {
		return [2]int64{0, 0}
	}
	lo, hi := int64(1<<62), int64(0)
	for _, o := range h.Ops {
		lo, hi = min(lo, o.Call), max(hi, o.Return, o.Deadline)
	}
	for _, f := range h.Faults {
		lo, hi = min(lo, f.Start), max(hi, f.Start, f.End)
	}
	if h.End != nil {
		hi = max(hi, h.End.At)
	}
	return [2]int64{lo, hi}
}

// lockNames are the locks h's ops name, sorted.
func lockNames(h *model.History) []string {
	seen := map[string]bool{}
	var out []string
	for _, o := range h.Ops {
		if !seen[o.Lock] {
			seen[o.Lock] = true
			out = append(out, o.Lock)
		}
	}
	slices.Sort(out)
	return out
}

// indexOf maps each name to its index.
func indexOf(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for i, n := range names {
		m[n] = i
	}
	return m
}

// encodeOps appends every op of h, sorted by lane then call, and returns
// where each op of h (by index) went.
func (d *timelineData) encodeOps(h *model.History, lanes *laneMap, lockIx map[string]int) []int {
	idx, lane := make([]int, len(h.Ops)), make([]int, len(h.Ops))
	for i := range idx {
		idx[i], lane[i] = i, lanes.of(lockIx[h.Ops[i].Lock], h.Ops[i].Process)
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(lane[a], lane[b]), cmp.Compare(h.Ops[a].Call, h.Ops[b].Call))
	})
	kinds, errs := map[string]int{}, map[string]int{"": 0}
	order := make([]int, len(h.Ops))
	d.Ops = make([]int64, 0, len(h.Ops)*opStride)
	for pos, i := range idx {
		o := &h.Ops[i]
		order[i] = pos
		d.Ops = append(d.Ops, int64(lane[i]), int64(o.Process), int64(d.intern(&d.Kinds, kinds, kindName(o))),
			outcomeCode(o.Outcome), o.Call, o.Return-o.Call, o.Token, int64(d.intern(&d.Errs, errs, o.Error)), opFlags(o))
	}
	return order
}

// intern is s's index in *table (through ix), appended if new.
func (d *timelineData) intern(table *[]string, ix map[string]int, s string) int {
	if i, ok := ix[s]; ok {
		return i
	}
	ix[s] = len(*table)
	*table = append(*table, s)
	return ix[s]
}

// kindName is the op's kind, with its side on a read-write lock.
func kindName(o *model.Op) string {
	if o.Mode != "" {
		return string(o.Kind) + "(" + o.Mode + ")"
	}
	return string(o.Kind)
}

func opFlags(o *model.Op) int64 {
	var f int64
	if o.Blocking {
		f |= opFlagBlocking
	}
	if o.Cancelled {
		f |= opFlagCancelled
	}
	if o.Overrun {
		f |= opFlagOverrun
	}
	if o.Also != "" {
		f |= opFlagAlso
	}
	return f
}

// encodeHolds appends the holds, sorted by lane then start.
func (d *timelineData) encodeHolds(hs []model.HoldSpan, lanes *laneMap, lockIx map[string]int) {
	slices.SortStableFunc(hs, func(a, b model.HoldSpan) int {
		return cmp.Or(cmp.Compare(lanes.of(lockIx[a.Lock], a.Process), lanes.of(lockIx[b.Lock], b.Process)), cmp.Compare(a.Start, b.Start))
	})
	d.Holds = make([]int64, 0, len(hs)*holdStride)
	for _, s := range hs {
		how := int64(holdLost)
		switch {
		case s.Released():
			how = holdReleased
		case s.EndKind == "":
			how = holdOpen
		}
		d.Holds = append(d.Holds, int64(lanes.of(lockIx[s.Lock], s.Process)), s.Start, max(s.End, s.Start), how)
	}
}
