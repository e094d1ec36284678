package model

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// CheckBeyond checks every anomaly of h's holds against what the recorded
// faults allow a correct lease lock (FaultAllowances, lapses) and reports
// Invalid only for an anomaly beyond all of them; a history that records a
// fault FaultAllowances does not list (nor Options.LossyFaults) is never
// Valid, but Unknown, naming it (its fault is judged as AllowLoss, so an
// anomaly beyond that is still Invalid). It reconstructs each
// process's holds from its ops (holdsOf) and looks for five anomalies:
//
//   - two holds of one lock believed at once (each granted before the
//     other's belief ended): allowed only when, in some order the grants'
//     intervals allow, the first hold could have lapsed (its explicit
//     lease, a recorded Expire, or a fault that hits its process and lasts
//     long enough) before the second grant took effect, the overlap ended
//     by the first holder's first call after the fault answered as if its
//     hold stood, and that call is no release answered ok after the second
//     grant, whether the second holder still holds or not (the grant shows
//     the first hold had ended: releasedAfterLoss);
//   - a hold whose release answered "not held": allowed only when the hold
//     could have lapsed before the release took effect;
//   - a release answered ok while another process believed it held across
//     it: allowed only when that other hold could have lapsed first, or a
//     fault that loses the server's state (a split brain serves two copies
//     of the lock) could have ended the releaser's;
//   - a refusal that only ended holds explain: released ones, or retired
//     ones past one lease of their last request (the lease bound,
//     leaseBound), ClassLiveness;
//   - a release or TryLock that ended without an answer past every bound
//     the run recorded for it (hungCalls), ClassContract.
//   - a watchdog hold whose client went on renewing it after Redis answered
//     that it was gone (renewedMissing), ClassContract.
//
// It needs no porcupine and is linear in the history but for the pairs of
// holds that overlap. Its violations are ClassSafety (the lease bound's
// ClassLiveness), each Example with Beyond set, locks in name order: the
// first Options.MaxExamples of them kept, and past those the first of each
// further signature (by op kinds, not call forms), so that the result's
// signatures name every kind of violation it found (a watchdog that went
// silent among hundreds of double grants); the anomalies it allowed are
// counted in the explanation.
func CheckBeyond(h *History, opts Options) Result {
	return checkBeyond(context.Background(), h, opts)
}

func checkBeyond(ctx context.Context, h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckAllowance}
	horizon := h.horizon()
	byLock := holdsOf(h, horizon)
	fs := newFaultSet(h.Faults, horizon, opts)
	acqs := lockAcquires(h)
	var calls map[string]map[int][]span
	var rels map[string][]*Op
	if opts.Wire != nil {
		calls, rels = callSpans(h, horizon), lockReleases(h)
	}
	allowed := allowances{}
	shown := map[string]bool{} // the signatures of the examples kept, without call forms
	keep := func(ex Example) {
		res.Count++
		sig := SignatureOf(CheckAllowance, ex).kinds().String()
		if len(res.Examples) >= opts.maxExamples() && shown[sig] {
			return
		}
		shown[sig] = true
		quoteWire(&ex, opts.Wire)
		quoteTakers(&ex, opts.Wire, calls)
		nameTakeBack(&ex, opts.Wire, calls)
		res.Examples = append(res.Examples, ex)
	}
	for _, lock := range judgedLocks(byLock, acqs) {
		if ctx.Err() != nil {
			return stoppedResult(CheckAllowance, stopReason(ctx, opts))
		}
		beyondIn(byLock[lock], fs, opts, keep, allowed)
		for _, ex := range unheardGrants(byLock[lock], fs, opts) {
			ex.Beyond, ex.Class = true, ClassSafety
			keep(ex)
		}
		for _, ex := range renewalGaps(byLock[lock], acqs[lock], fs, opts) {
			ex.Beyond, ex.Class = true, ClassSafety
			keep(ex)
		}
		owners := sync.OnceValue(func() map[string]tokenUse { return opts.Wire.tokenOwners(lock, callWindows(byLock[lock], acqs[lock])) })
		orphans := orphanTraffic(lock, byLock[lock], acqs[lock], rels[lock], owners, opts, horizon)
		refusals := leaseBound(h, byLock[lock], acqs[lock], fs, opts, horizon)
		var oc *occupants
		if len(refusals) > 0 {
			oc = newOccupants(lock, byLock[lock], acqs[lock], rels[lock], owners, opts, horizon)
		}
		for _, ex := range refusals {
			ex.Beyond, ex.Class = true, ClassLiveness
			var known bool
			if ex.Mechanism, known = oc.refusalMechanism(ex.Ops[0]); !known {
				ex.Mechanism = orphansMechanism(orphans)
			}
			keep(ex)
		}
		for _, ex := range orphans {
			ex.Beyond, ex.Class = true, ClassLiveness
			ex.Faults = fs.overlapping(ex.Ops)
			keep(ex)
		}
		for _, ex := range renewedMissing(lock, byLock[lock], acqs[lock], opts) {
			ex.Beyond = true
			ex.Faults = fs.overlapping(ex.Ops)
			keep(ex)
		}
	}
	for _, ex := range hungCalls(h, opts, horizon) {
		ex.Beyond = true
		keep(ex)
	}
	res.Verdict, res.Allowed = Valid, allowed.list()
	res.Explanation = fmt.Sprintf("no anomaly beyond the faults' allowances (%d allowed by a fault or a lease)", allowed.total())
	if res.Count > 0 {
		res.Verdict = Invalid
		res.Explanation = fmt.Sprintf("%d anomalies beyond every fault's allowance (%d others allowed by a fault or a lease)", res.Count, allowed.total())
	}
	unknownVerdict(&res, opts.unknownFaults(h.Faults))
	res.Explanation += untracedNote(h.Faults, opts)
	res.Elapsed = time.Since(start)
	return res
}

// judgedLocks are the locks with holds, and those with only failed or
// unknown acquires, in name order.
func judgedLocks(byLock map[string][]*hold, acqs map[string][]*Op) []string {
	locks := slices.Collect(maps.Keys(byLock))
	for l := range acqs {
		if _, ok := byLock[l]; !ok {
			locks = append(locks, l)
		}
	}
	slices.Sort(locks)
	return locks
}

// untracedNote says, for a history with drop faults and no wire trace,
// what the checker judged without one: each drop's reconnection is the
// constant Options.Reconnect, not the one recorded, and the rules that
// read the trace (a watchdog that went silent, a grant Redis never
// answered, who took a lock) were not applied. "" otherwise.
func untracedNote(faults []Fault, opts Options) string {
	if opts.Wire != nil || !slices.ContainsFunc(faults, func(f Fault) bool { return opts.allowOf(f) == AllowDrop }) {
		return ""
	}
	return fmt.Sprintf("; no wire trace: each drop's reconnection taken as %s (not as recorded), and the trace's rules "+
		"(a watchdog that went silent, a grant Redis never answered) not applied", fmtDur(opts.reconnect()))
}

// unknownVerdict makes res, the fault-allowance result of a history that
// records faults whose allowance is unknown (err, from unknownFaults),
// say so: the checker judged them as loss faults, the widest allowance
// there is, so an anomaly beyond them is still Invalid, but their absence
// decides nothing and the verdict is Unknown.
func unknownVerdict(res *Result, err error) {
	if err == nil {
		return
	}
	if res.Verdict == Invalid {
		res.Explanation += fmt.Sprintf("; %v, judged as losing the server's state", err)
		return
	}
	res.Verdict = Unknown
	res.Explanation = fmt.Sprintf("%v: what it allows a correct lock is unknown, so a history with it is never judged within the faults "+
		"(judged as losing the server's state, it showed nothing beyond: %s)", err, res.Explanation)
}

// beyondIn checks one lock's holds, sorted by start: it hands keep each
// anomaly beyond the faults and counts in allowed what allowed the others.
func beyondIn(holds []*hold, fs *faultSet, opts Options, keep func(Example), allowed allowances) {
	grantFloors(holds, fs, opts)
	judge := func(ex *Example, by string) {
		if ex == nil {
			allowed[by]++
			return
		}
		ex.Beyond, ex.Class = true, ClassSafety
		keep(*ex)
	}
	for i, a := range holds {
		if a.releaseRefused() {
			judge(lostHold(a, fs, opts))
		}
		for _, b := range holds[i+1:] {
			if b.start() >= a.end {
				break // sorted by start: no later hold overlaps a
			}
			if a.grant.Process == b.grant.Process || b.end <= a.start() || (a.shared && b.shared) {
				continue // readers share a read-write lock
			}
			judge(doubleHold(a, b, fs, opts))
			for _, o := range [][2]*hold{{a, b}, {b, a}} {
				if x, y := o[0], o[1]; x.releasedOK() && y.start() < x.endOp.Call && y.end > x.endOp.Return {
					judge(foreignRelease(x, y, fs, opts))
				}
			}
		}
	}
}

// lapseFound is firstLapse's answer for one order of two holds.
type lapseFound struct {
	lapse
	ok  bool     // a lapse of x allows the overlap
	why []string // why each lapse that does not allow it does not
	// released is x's release answered ok after y's grant that kept a
	// lapse from allowing the overlap (releasedAfterLoss); nil when none.
	released *Op
}

// firstLapse returns the first lapse of x that ends it by the time y's claim
// took effect and whose forgiveness lasts until until, if any: x's first
// call after the lapse that was answered as if its hold stood must come
// after the overlap, and must not be a release answered ok after y's
// grant (releasedAfterLoss).
func firstLapse(x, y *hold, until int64, fs *faultSet, opts Options) lapseFound {
	claim := y.grant.effectiveDeadline()
	ls, why := fs.lapses(x, opts)
	found := lapseFound{why: why}
	for _, l := range ls {
		if l.earliest > claim {
			found.why = append(found.why, fmt.Sprintf("%s lets p%d's hold end no earlier than %s", l.allowedBy(), x.grant.Process, fmtTime(l.earliest)))
			continue
		}
		if learn := x.learnBy(l.learnAfter); until > learn {
			found.why = append(found.why, fmt.Sprintf("%s lets p%d's hold end, but p%d's call answered at %s after it did not learn the loss", l.allowedBy(), x.grant.Process, x.grant.Process, fmtTime(learn)))
			continue
		}
		if o, bad := releasedAfterLoss(x, y, l, opts); bad {
			found.why = append(found.why, fmt.Sprintf("%s lets p%d's hold end, and p%d was granted at %s, but p%d's release answered ok at %s after it: it did not learn the loss",
				l.allowedBy(), x.grant.Process, y.grant.Process, fmtTime(y.start()), x.grant.Process, fmtTime(o.Return)))
			found.released = cmp.Or(found.released, o)
			continue
		}
		found.lapse, found.ok = l, true
		return found
	}
	return found
}

// releasedAfterLoss returns x's first call answered after lapse l could
// have ended its hold (from l.learnAfter on), and whether it is a release
// answered ok that x made after y's grant: y's grant is the evidence that
// x's hold had ended, whoever holds by the time x releases, and a correct
// lock answers such a release "not held" (Redisson's unlock answers ok
// only while the holder's hash field is there). A hold that need not have
// ended (no other process granted) may release ok, and so may one whose
// first answer was a reentry granted ok on the free lock, a fresh hold. A
// second copy of the lock may answer it instead: a failover's old master
// (lapse.copies) or, for a quorum lock (Options.SplitVotes), the members
// the lapse left.
func releasedAfterLoss(x, y *hold, l lapse, opts Options) (*Op, bool) {
	if l.copies || opts.SplitVotes {
		return nil, false
	}
	o := x.firstAnswer(l.learnAfter)
	return o, o != nil && o.Kind == Release && o.Outcome == OK && o.Call > y.start()
}

// doubleHold judges two holds of different processes believed at once: nil
// and what allows it when some order of their grants and some lapse of the
// first allow it.
//
// Its shape is ShapeUnlockAfterLapse when a lapse would have allowed the
// overlap but for a release answered ok after the other's grant: the
// lock told a holder whose hold had ended that it released it, so the
// holder never learned it had lost the lock. Any other is
// ShapeDoubleGrant.
func doubleHold(a, b *hold, fs *faultSet, opts Options) (*Example, string) {
	until := min(a.end, b.end)
	var why []string
	var released *Op
	for _, o := range [][2]*hold{{a, b}, {b, a}} {
		x, y := o[0], o[1]
		if x.since() >= y.grant.effectiveDeadline() {
			continue // x cannot have been granted first
		}
		found := firstLapse(x, y, until, fs, opts)
		if found.ok {
			return nil, found.allowedBy()
		}
		why, released = append(why, found.why...), cmp.Or(released, found.released)
	}
	shape, summary := ShapeDoubleGrant, fmt.Sprintf("p%d and p%d both believed they held the lock from %s (p%d granted at %s, p%d at %s)",
		a.grant.Process, b.grant.Process, fmtTime(max(a.start(), b.start())), a.grant.Process, fmtTime(a.start()), b.grant.Process, fmtTime(b.start()))
	if released != nil {
		shape = ShapeUnlockAfterLapse
		summary = fmt.Sprintf("p%d's release answered ok at %s after its hold could have lapsed and another was granted, so %s", released.Process, fmtTime(released.Return), summary)
	}
	return beyondExample(shape, summary, []*Op{a.grant, b.grant, a.endOp, b.endOp}, why, fs), ""
}

// lostHold judges a hold whose release answered "not held": nil and what
// allows it when the hold could have lapsed before the release took effect.
//
// A release the wire trace shows sent twice (replayed) is allowed: its
// first copy, whose reply a dead connection lost, ended the hold.
func lostHold(x *hold, fs *faultSet, opts Options) (*Example, string) {
	if opts.Wire != nil && opts.Wire.replayed(x.grant.Process, x.grant.Lock, x.endOp.Call, x.endOp.Return) {
		return nil, fmt.Sprintf("p%d's release, sent twice (wire trace)", x.grant.Process)
	}
	ls, why := fs.lapses(x, opts)
	for _, l := range ls {
		if l.earliest <= x.endOp.effectiveDeadline() {
			return nil, l.allowedBy()
		}
		why = append(why, fmt.Sprintf("%s lets p%d's hold end no earlier than %s", l.allowedBy(), x.grant.Process, fmtTime(l.earliest)))
	}
	return beyondExample(ShapeHoldLost, fmt.Sprintf("p%d's release answered that it held nothing, but its hold (granted at %s) had no way to end before",
		x.grant.Process, fmtTime(x.start())), []*Op{x.grant, x.endOp}, why, fs), ""
}

// foreignRelease judges a release by x answered ok while y believed it held
// across it: nil and what allows it when y's hold could have lapsed before
// the release took effect (its lease, or a fault that hits it), or when a
// fault that loses the server's state could have ended x's (a split brain
// serves two copies of the lock, so each release may meet its own).
func foreignRelease(x, y *hold, fs *faultSet, opts Options) (*Example, string) {
	at := x.endOp.effectiveDeadline()
	ly, _ := fs.lapses(y, opts)
	for _, l := range ly {
		if l.earliest <= at {
			return nil, l.allowedBy()
		}
	}
	lx, _ := fs.lapses(x, opts)
	for _, l := range lx {
		if l.loss && l.earliest <= at {
			return nil, l.allowedBy()
		}
	}
	return beyondExample(ShapeForeignRelease, fmt.Sprintf("p%d's release answered ok at %s while p%d held the lock (granted at %s): it freed another's hold, or answered falsely",
		x.grant.Process, fmtTime(x.endOp.Return), y.grant.Process, fmtTime(y.start())),
		[]*Op{x.grant, y.grant, x.endOp}, []string{fmt.Sprintf("p%d's hold had no way to end before, and no fault that loses the server's state ended p%d's", y.grant.Process, x.grant.Process)}, fs), ""
}

// beyondExample builds the example of an anomaly of shape s beyond the
// faults.
func beyondExample(s Shape, summary string, ops []*Op, why []string, fs *faultSet) *Example {
	ex := Example{Summary: summary + ": beyond the faults", Shape: s}
	for _, o := range ops {
		if o != nil {
			ex.Lock = o.Lock
			ex.Ops = append(ex.Ops, *o)
		}
	}
	ex.Faults = fs.overlapping(ex.Ops)
	if len(why) == 0 {
		why = []string{"no fault or lease allows it"}
	}
	ex.Cause = strings.Join(why, "; ")
	return &ex
}

// overlappingFaults are the windows of faults that overlap ops.
func overlappingFaults(faults []Fault, ops []Op, horizon int64) []Fault {
	return overlappingUntil(&History{Faults: faults, Ops: ops}, ops, horizon)
}

// grantFloors sets each hold's floor: the earliest its grant can have taken
// effect given the other processes' holds granted while its acquire was in
// flight. Had x been granted before such a hold h, h would have been
// granted while x held the lock, too soon for x to have lapsed; so x was
// granted after h could have ended (its end, or its own earliest lapse).
// Pair by pair, an acquire that answered long after its call (a reply lost
// in a partition, a timeout taken for a grant) could otherwise be placed at
// its call, its lease run out long before its reply.
func grantFloors(holds []*hold, fs *faultSet, opts Options) {
	ended := make([]int64, len(holds)) // the earliest each hold can have left the lock free
	for i, h := range holds {
		ended[i] = h.end
		ls, _ := fs.lapses(h, opts)
		for _, l := range ls {
			ended[i] = min(ended[i], l.earliest)
		}
	}
	for _, x := range holds {
		if x.grant.Return-x.grant.Call < opts.watchdogLease()/10 {
			continue // answered promptly: nothing to place
		}
		ls, _ := fs.lapses(x, opts)
		soonest := int64(math.MaxInt64) // x's earliest lapse, granted at its call
		for _, l := range ls {
			soonest = min(soonest, l.earliest)
		}
		lo := sort.Search(len(holds), func(i int) bool { return holds[i].start() >= x.grant.Call })
		for i := lo; i < len(holds) && holds[i].start() <= x.grant.Return; i++ {
			h := holds[i]
			if h.grant.Process != x.grant.Process && h.grant.Call >= x.grant.Call && ended[i] <= x.grant.Return && h.grant.effectiveDeadline() < soonest {
				x.floor = max(x.floor, ended[i])
			}
		}
	}
}
