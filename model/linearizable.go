package model

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// CheckLinearizability checks h's lock ops against the sequential reentrant,
// owner-aware mutex (see lockState), per lock name and per quiet-point
// segment, with porcupine. It is bounded by opts.Timeout: when that runs out
// before every segment is decided and none is illegal, the verdict is Unknown.
//
// Segments are built one lock at a time and checked as they are built on
// GOMAXPROCS workers, so beyond h itself memory holds one lock's ops (about
// 100 bytes an op) and the segments in flight, never every lock's at once.
func CheckLinearizability(h *History, opts Options) Result {
	ctx, cancel := withTimeout(context.Background(), opts)
	defer cancel()
	return checkLinearizability(ctx, h, opts)
}

// checkLinearizability is CheckLinearizability bounded by ctx (which
// carries the timeout) instead of opts.Timeout.
func checkLinearizability(ctx context.Context, h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckLinearizable}
	h, settled := settleUnsent(h, opts.Wire) // acquires that sent Redis nothing (settle.go)
	h = ExpandMembers(h)                     // a multilock's ops on each of its members (members.go)
	t := checkStream(ctx, h, opts)
	shape := fmt.Sprintf("%d lock ops on %d locks in %d segments (largest %d)%s", t.nops, t.locks, t.nsegs, t.largest, settledNote(settled))
	switch {
	case t.illegal > 0:
		res.Verdict = Invalid
		res.Count = len(t.firsts)
		res.Explanation = fmt.Sprintf("not linearizable: %d of %d segments admit no sequential order of a reentrant owner-aware mutex", t.illegal, t.nsegs)
		if follow := t.illegal - len(t.firsts); follow > 0 {
			res.Explanation += fmt.Sprintf(" (the first contradiction on each of %d locks is shown; %d later segments start from a state computed from outcomes already contradicted, so they follow from it and are not counted)", len(t.firsts), follow)
		}
		res.Explanation += "; " + shape
		locks := map[string]bool{}
		for _, is := range t.examples {
			locks[is.seg.lock] = true
		}
		late := lateUnlocksOf(h, locks)
		for _, is := range t.examples {
			res.Examples = append(res.Examples, explainSegment(ctx, h, is.seg, opts, late))
		}
	case t.undecided > 0 || ctx.Err() != nil:
		res.Verdict = Unknown
		res.Count = t.undecided
		within := "within " + opts.timeout().String()
		if why := stopReason(ctx, opts); why != "" {
			within = "(the check was " + why + ")"
		}
		res.Explanation = fmt.Sprintf("undecided: %d of %d segments not decided %s; %s", t.undecided-t.tooBig, t.nsegs, within, shape)
		if t.tooBig > 0 {
			res.Explanation = fmt.Sprintf("undecided: %d of %d segments have more than %d ops (no quiet point: some acquire is always in flight) and were not checked (porcupine would need ~n²/8 bytes; see Options.MaxSegmentOps), %d not decided %s; %s",
				t.tooBig, t.nsegs, opts.maxSegmentOps(), t.undecided-t.tooBig, within, shape)
		}
	default:
		res.Verdict = Valid
		res.Explanation = "linearizable: " + shape
	}
	res.Elapsed = time.Since(start)
	return res
}

// tally is what checkStream found.
type tally struct {
	nops, locks, nsegs, largest int
	illegal, undecided          int
	tooBig                      int        // segments over Options.MaxSegmentOps
	examples                    []numbered // the first illegal segment of each lock (at most opts.maxExamples()), in order
	firsts                      map[string]numbered
}

// numbered is a segment with its position in lock-then-time order.
type numbered struct {
	n   int
	seg segment
	in  *sharedInputs // the arrays seg points into
}

// checkStream builds h's segments lock by lock and checks them on
// GOMAXPROCS workers until ctx ends; segments not decided by then are
// Unknown, and none is built after it.
func checkStream(ctx context.Context, h *History, opts Options) *tally {
	t := &tally{}
	var mu sync.Mutex
	var pool inputPool
	segs := make(chan numbered, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []porcupine.Operation // one segment's ops at a time
			for ns := range segs {
				v := porcupine.Unknown
				if !ns.seg.tooBig {
					buf = ns.seg.build(buf[:0])
					if v = checkOps(ctx, buf); v == porcupine.Illegal {
						ns.seg.ops = slices.Clone(buf) // kept, to be explained
						ns.in.kept.Store(true)
					}
				}
				mu.Lock()
				t.record(ns, v, opts.maxExamples())
				mu.Unlock()
				pool.release(ns.in)
			}
		})
	}
	ix := indexLocks(h)
	t.locks = len(ix.locks)
	for _, l := range ix.locks {
		in := pool.get()
		ix.eachSegment(h, l, opts, &in.lockInputs, func(s segment) bool {
			t.largest = max(t.largest, s.n)
			t.nops += s.real
			if s.tooBig {
				t.tooBig++
			}
			pool.hold(in)
			segs <- numbered{t.nsegs, s, in}
			t.nsegs++
			return ctx.Err() == nil
		})
		pool.release(in)
		if ctx.Err() != nil {
			break
		}
	}
	close(segs)
	wg.Wait()
	return t
}

// record counts one verdict, keeping the earliest illegal segment of each
// lock (up to keep of them). A later illegal segment of a lock that already
// has one follows it: the state it starts from was computed from outcomes
// already shown to contradict each other, so it is counted apart and not
// explained as a violation of its own.
func (t *tally) record(ns numbered, v porcupine.CheckResult, keep int) {
	switch v {
	case porcupine.Unknown:
		t.undecided++
	case porcupine.Illegal:
		t.illegal++
		if t.firsts == nil {
			t.firsts = map[string]numbered{}
		}
		if f, ok := t.firsts[ns.seg.lock]; ok && f.n < ns.n {
			return
		}
		t.firsts[ns.seg.lock] = ns
		t.examples = t.examples[:0]
		for _, f := range t.firsts {
			t.examples = append(t.examples, f)
		}
		sort.Slice(t.examples, func(a, b int) bool { return t.examples[a].n < t.examples[b].n })
		if len(t.examples) > keep {
			t.examples = t.examples[:keep]
		}
	}
}

// explainSegment finds, in an illegal segment, the op that no sequential
// order can accommodate, the ops it conflicts with and why.
// Only the ops the contradiction needs are considered: the segment less
// the fail ops it does not need (minimalConflict, a few checks of the
// segment), then the window of it that holds its first contradiction
// (narrowConflict), where the refusal is looked for, op by op, so that
// explaining does not search the whole segment once per op; the example
// names all of them.
// A contradiction that disappears when a single failed op is set aside is
// labelled a refusal (ClassRefusal), never two holders.
// late is the empty unlocks of seg's lock (lateUnlocksOf).
func explainSegment(ctx context.Context, h *History, seg segment, opts Options, late emptyUnlocks) Example {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	m, release := stoppable(ctx)
	defer release()
	seg.ops = minimalConflict(ctx, m, seg.ops)
	var whole []porcupine.Operation // the minimal segment, when the window is less
	if w := narrowConflict(ctx, m, seg.ops); len(w) < len(seg.ops) {
		whole, seg.ops = seg.ops, w
	}
	if refused := refusalIn(ctx, m, late, seg.ops, whole); refused != nil {
		return explainRefusal(h, seg, refused, explainConflict(ctx, m, h, seg, opts), opts, late)
	}
	return explainConflict(ctx, m, h, seg, opts)
}

// explainConflict explains a minimal illegal segment: the stuck op, the
// state it met and who made it so, and, for two holders, whether the
// first hold could have ended.
func explainConflict(ctx context.Context, m porcupine.Model, h *History, seg segment, opts Options) Example {
	ex := Example{Lock: seg.lock, Shape: ShapeUnexplained}
	_, info := porcupine.CheckOperationsVerbose(m, seg.ops, 0)
	if ctx.Err() != nil {
		ex.Summary = "no sequential order explains these outcomes (not explained further: the check was stopped)"
		return ex
	}
	var longest []porcupine.Operation
	for _, part := range info.PartialLinearizationsOperations() {
		for _, l := range part {
			if len(l) > len(longest) {
				longest = l
			}
		}
	}
	// Replay the longest prefix, remembering who made the state what it is.
	done := map[*stepInput]bool{}
	var s lockState
	var grant, freed *stepInput // op that granted the current owner's first hold; op that last freed the lock
	for _, op := range longest {
		in := op.Input.(*stepInput)
		done[in] = true
		_, next, _ := step(s, in)
		if next.Held && (!s.Held || s.Owner != next.Owner) {
			grant = in
		}
		if !next.Held && s.Held {
			freed = in
		}
		s = next
	}
	// The stuck op: not linearized, earliest return.
	var stuck *stepInput
	var stuckRet int64
	for _, op := range seg.ops {
		in := op.Input.(*stepInput)
		if !done[in] && (stuck == nil || op.Return < stuckRet) {
			stuck, stuckRet = in, op.Return
		}
	}
	if stuck == nil || stuck.op == nil {
		ex.Summary = "no sequential order explains these outcomes"
		return ex
	}
	ok, _, r := step(s, stuck)
	summary := why(r, s, stuck)
	if ok {
		summary = fmt.Sprintf("no sequential order explains %v (after %d ops the lock was %s)", *stuck.op, len(longest), describeState(s))
	}
	ex.Summary = summary
	if s, named := refusalShapes[r]; named && !ok {
		ex.Shape = s
	}
	ex.Class = ClassSafety
	if r != grantedWhileHeld && r != releasedNotHeld {
		ex.Class = ClassRefusal
	}
	var first *Op
	switch {
	case s.Held && grant != nil && grant.op != nil:
		first = grant.op
	case s.Held:
		first = lastGrant(h, seg.lock, s.Owner, stuck.call)
	}
	ex.Ops = neededOps(seg, first, freed, stuck)
	ex.Faults = overlapping(h, ex.Ops)
	horizon := h.horizon()
	switch {
	case first != nil && r == grantedWhileHeld:
		var e holdEnd
		var earlier, later *Op
		earlier, later, e, ex.Cause = grantCause(first, stuck.op, ex.Faults, horizon, opts)
		ex.LeaseCouldExpire, ex.HoldCouldBeLost, ex.AllowedBy = e.lease, e.lost != nil, e.allowedBy
		if earlier != first {
			ex.Summary = why(r, lockState{Held: true, Owner: earlier.Process}, &stepInput{process: later.Process})
		}
	case first != nil && stuck.kind == Acquire:
		e := holdCouldEnd(first, stuck.op, ex.Faults, horizon, opts)
		ex.Cause, ex.LeaseCouldExpire, ex.HoldCouldBeLost, ex.AllowedBy = e.verdict(), e.lease, e.lost != nil, e.allowedBy
	}
	return ex
}

// neededOps lists, earliest call first, the ops of the conflict: the op
// that made the state the stuck op met (first, the grant of the holder, or
// freed, the release that freed the lock), the stuck op, and every recorded
// op of the (minimal) segment that overlaps the time between them.
func neededOps(seg segment, first *Op, freed, stuck *stepInput) []Op {
	var out []Op
	seen := map[*Op]bool{}
	add := func(o *Op) {
		if o != nil && !seen[o] {
			seen[o] = true
			out = append(out, *o)
		}
	}
	lo, hi := stuck.call, stuck.deadline
	switch {
	case first != nil:
		lo = min(lo, first.Call)
		add(first)
	case freed != nil && freed.op != nil:
		lo = min(lo, freed.call)
		add(freed.op)
	}
	add(stuck.op)
	for _, op := range seg.ops {
		if in := op.Input.(*stepInput); in.op != nil && in.call <= hi && in.deadline >= lo {
			add(in.op)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Call < out[b].Call })
	return out
}
