package model

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// Kinds of the semaphore with expirable permits (Redisson
// RPermitExpirableSemaphore). Its permits are set and added with SemSet and
// SemAdd; Op.PermitID names a permit.
const (
	// PermitAcquire takes one permit for Lease (<= 0: no expiry), waiting
	// at most Wait: ok with the permit's PermitID, or fail.
	PermitAcquire Kind = "permit-acquire"
	// PermitRelease gives permit PermitID back: ok when it was held and
	// its lease had not run out; fail otherwise (an expired permit goes
	// back to the pool all the same).
	PermitRelease Kind = "permit-release"
)

// permitHeld is one permit in the lease ZSET: its lease ends within
// [lo, hi] (the acquire's call and deadline plus its lease; MaxInt64: no
// expiry). An info acquire's permit has no id.
type permitHeld struct {
	id     string
	lo, hi int64
}

// permitState is the sequential RPermitExpirableSemaphore: the available
// permits, the permits in the lease ZSET (expired ones stay there until a
// script returns them), and clock, a lower bound on the time of the next
// op (the latest call among the ops before: time only goes forward along
// a linearization). Time comes in through the inputs' call and deadline.
type permitState struct {
	set   bool
	avail int64
	clock int64
	held  []permitHeld // sorted
}

func (s permitState) key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v/%d/%d", s.set, s.avail, s.clock)
	for _, h := range s.held {
		fmt.Fprintf(&b, "|%s:%d:%d", h.id, h.lo, h.hi)
	}
	return b.String()
}

func (s permitState) with(held []permitHeld) permitState {
	held = slices.Clone(held)
	slices.SortFunc(held, func(a, b permitHeld) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	s.held = held
	return s
}

// permitInput is one op for the model.
type permitInput struct {
	op             int
	kind           Kind
	n              int64
	id             string
	outcome        Outcome
	cancelled      bool
	call, deadline int64
	lease          int64
	gran           int64 // the clocks' granularity
}

// PermitClockGranularity is the granularity of the instants Redisson's
// permit scripts compare: epoch milliseconds, truncated, on the clients'
// clocks. A lease end and a "now" each read up to that much early
// (Options.PermitGranularity).
const PermitClockGranularity = int64(1e6)

// leaseWindow is when the lease of a permit this acquire took ends, as the
// scripts will compare it with a reading of "now": from the call plus the
// lease, less a millisecond of truncation, to the deadline plus the lease,
// plus one for the truncated "now" that compares with it.
func (in permitInput) leaseWindow() (lo, hi int64) {
	if in.lease <= 0 {
		return math.MaxInt64, math.MaxInt64
	}
	return in.call + in.lease - in.gran, in.deadline + in.lease + in.gran
}

// permitStep returns the states in may lead to from s.
//   - acquire: the script first returns one expired permit (its lowest
//     lease end) to the pool: one that surely expired (its lease ended
//     before the clock) must go back, one that may have (its lease may end
//     before the op's deadline) may; ok then needs a permit, fail needs
//     none (or a cancelled call); info both;
//   - release of a held id: ok if its lease may not have ended, fail if it
//     may have; either way it goes back to the pool. Of an id not held:
//     fail, nothing changes;
//   - set and add: as for the counting semaphore (semStep).
func permitStep(s permitState, in permitInput) []permitState {
	s.clock = max(s.clock, in.call)
	switch in.kind {
	case PermitAcquire:
		return permitAcquireStep(s, in)
	case PermitRelease:
		return permitReleaseStep(s, in)
	}
	var out []permitState
	for _, n := range semStep(semState{Set: s.set, Avail: s.avail}, semInput{kind: in.kind, n: in.n, outcome: in.outcome}) {
		out = append(out, permitState{set: n.Set, avail: n.Avail, clock: s.clock, held: s.held})
	}
	return out
}

func permitAcquireStep(s permitState, in permitInput) []permitState {
	var out []permitState
	if in.outcome != OK && (in.outcome == Info || in.cancelled) {
		// its script may never have run: nothing returned, nothing taken
		out = append(out, s)
	}
	for _, r := range permitReclaims(s, in.deadline) {
		took := r.avail - s.avail // permits returned by its attempts
		ok := r.set && r.avail >= 1
		// attempts before the last one failed: each returned a permit
		// and still found none
		if took >= 2 && s.avail+took-1 >= 1 {
			continue
		}
		if in.outcome != OK && (!ok || in.cancelled || in.outcome == Info) {
			out = append(out, r)
		}
		if in.outcome != Fail && ok {
			lo, hi := in.leaseWindow()
			taken := r.with(append(slices.Clone(r.held), permitHeld{id: in.id, lo: lo, hi: hi}))
			taken.avail--
			out = append(out, taken)
		}
	}
	return out
}

// permitReclaims are the states after an acquire's scripts returned
// expired permits to the pool: each attempt returns at most one (its
// lowest lease end), and attempts go on while the pool stays empty, so
// the acquire returns up to max(1, 1 - available) of the permits whose
// lease may have ended by its deadline, and at least one when a lease
// surely ended before the clock.
func permitReclaims(s permitState, deadline int64) []permitState {
	var cand []int
	sure := false
	for i, h := range s.held {
		if h.lo <= deadline {
			cand = append(cand, i)
			sure = sure || h.hi <= s.clock
		}
	}
	most := max(1, 1-s.avail)
	var out []permitState
	var pick func(from int, chosen []int)
	pick = func(from int, chosen []int) {
		if len(chosen) > 0 || !sure {
			r := s
			var held []permitHeld
			for i, h := range s.held {
				if !slices.Contains(chosen, i) {
					held = append(held, h)
				}
			}
			r = r.with(held)
			r.avail += int64(len(chosen))
			out = append(out, r)
		}
		if int64(len(chosen)) == most {
			return
		}
		for k := from; k < len(cand); k++ {
			pick(k+1, append(slices.Clone(chosen), cand[k]))
		}
	}
	pick(0, nil)
	return out
}

func permitReleaseStep(s permitState, in permitInput) []permitState {
	i := slices.IndexFunc(s.held, func(h permitHeld) bool { return h.id == in.id && h.id != "" })
	if i < 0 {
		if in.outcome == OK {
			return nil
		}
		return []permitState{s}
	}
	h := s.held[i]
	back := s.with(slices.Delete(slices.Clone(s.held), i, i+1))
	back.avail++
	var out []permitState
	switch in.outcome {
	case OK:
		if h.hi > s.clock { // its lease may still run
			out = append(out, back)
		}
	case Fail:
		if h.lo <= in.deadline { // its lease may have ended
			out = append(out, back)
		}
	default:
		out = append(out, s, back)
	}
	return out
}

// permitSet is a set of possible states, sorted by key, without
// duplicates.
type permitSet []permitState

func (a permitSet) norm() permitSet {
	slices.SortFunc(a, func(x, y permitState) int { return strings.Compare(x.key(), y.key()) })
	return slices.CompactFunc(a, func(x, y permitState) bool { return x.key() == y.key() })
}

// permitModel is the porcupine model of one segment starting in any state
// of init.
func permitModel(init permitSet) porcupine.Model {
	return porcupine.Model{
		Init: func() interface{} { return init },
		Step: func(state, input, _ interface{}) (bool, interface{}) {
			var out permitSet
			for _, s := range state.(permitSet) {
				out = append(out, permitStep(s, input.(permitInput))...)
			}
			return len(out) > 0, out.norm()
		},
		Equal: func(a, b interface{}) bool {
			return slices.EqualFunc(a.(permitSet), b.(permitSet), func(x, y permitState) bool { return x.key() == y.key() })
		},
		DescribeOperation: func(input, _ interface{}) string {
			in := input.(permitInput)
			return fmt.Sprintf("%s %s -> %s", in.kind, in.id, in.outcome)
		},
	}
}

func permitInputOf(h *History, i int, gran int64) permitInput {
	o := &h.Ops[i]
	return permitInput{op: i, kind: o.Kind, n: o.N, id: o.PermitID, outcome: o.Outcome, cancelled: o.Cancelled,
		call: o.Call, deadline: o.effectiveDeadline(), lease: o.Lease, gran: gran}
}

// permitGranularity is Options.PermitGranularity's value in ns.
func (o Options) permitGranularity() int64 {
	switch {
	case o.PermitGranularity < 0:
		return 0
	case o.PermitGranularity == 0:
		return PermitClockGranularity
	}
	return int64(o.PermitGranularity)
}
