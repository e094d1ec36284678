package model

import (
	"fmt"

	"pgregory.net/rapid"
)

// A rapid generator of lock histories for the differential tests of the
// linearizability checker. It simulates a correct lock service with real
// timestamps (a ground truth), so that a history it records is valid by
// construction: every op takes effect at an instant inside its interval, in
// the order the ground truth applied them. It then optionally perturbs the
// record (flips outcomes, drops ops, moves ops in time) so that some
// histories are invalid. Every choice is a rapid draw, so a failing history
// shrinks.
//
// The ground truth follows the lock's contract as the model states it:
// holds of a live process end only through its releases or when its
// explicit lease runs out (recorded as an Expire op whose window holds the
// instant); a retired process's holds (info ops, Abandon) vanish at an
// instant no later than one lease after its last request could reach the
// server; an info op may or may not take effect; a cancelled acquire fails.

// genConfig bounds a generated history.
type genConfig struct {
	maxSteps int // actions drawn (each records at most one op, plus Expire ops)
	maxLocks int // 1 or 2
	perturb  bool
}

// gtLock is the ground truth of one lock.
type gtLock struct {
	name      string
	owner     int // live holder (-1: none)
	count     int
	maxLease  int64 // longest effective lease among the owner's holds
	expiry    int64 // when the server drops the owner's holds (0: never, watchdog)
	lastAcq   Op    // the owner's latest ok acquire: the Expire window follows it
	lastLease int64 // the effective lease of lastAcq
	retired   []int64
}

// retiredAt reports whether a retired hold may still exist at t.
func (l *gtLock) retiredAt(t int64) bool {
	for _, e := range l.retired {
		if e >= t {
			return true
		}
	}
	return false
}

type gtSlot struct {
	id   int
	busy int64 // the slot's process is busy until then
}

type generator struct {
	t        *rapid.T
	watchdog int64
	locks    []*gtLock
	slots    []gtSlot
	next     int
	ops      []Op
	now      int64
}

// genHistory draws a history, the options to check it with, and whether it
// was perturbed (false: valid by construction).
func genHistory(t *rapid.T, cfg genConfig) (*History, Options, bool) {
	g := &generator{t: t, watchdog: rapid.SampledFrom([]int64{60, 400, 5000}).Draw(t, "watchdog")}
	for i := range rapid.IntRange(1, cfg.maxLocks).Draw(t, "locks") {
		g.locks = append(g.locks, &gtLock{name: fmt.Sprintf("L%d", i), owner: -1})
	}
	for range rapid.IntRange(2, 4).Draw(t, "procs") {
		g.slots = append(g.slots, gtSlot{id: g.newProc()})
	}
	for range rapid.IntRange(1, cfg.maxSteps).Draw(t, "steps") {
		g.step()
	}
	g.flush(1 << 62)
	h := &History{Ops: g.ops}
	if err := h.Validate(); err != nil {
		t.Fatalf("ground truth recorded a malformed history: %v\n%s", err, dumpHistory(h))
	}
	opts := Options{WatchdogLease: durNs(g.watchdog), Fair: rapid.IntRange(0, 3).Draw(t, "fair") == 0, MaxSegmentOps: -1}
	perturbed := false
	if cfg.perturb {
		for range rapid.IntRange(0, 2).Draw(t, "perturbations") {
			perturbed = perturb(t, h) || perturbed
		}
	}
	return h, opts, perturbed
}

func (g *generator) newProc() int { g.next++; return g.next - 1 }

// step advances the clock, lets leases run out, and has one idle process
// act on one lock.
func (g *generator) step() {
	if g.nearExpiry() || g.nearVanish() {
		return
	}
	gap := int64(rapid.IntRange(1, 20).Draw(g.t, "gap"))
	if rapid.IntRange(0, 9).Draw(g.t, "quiet") == 0 {
		gap += int64(rapid.IntRange(50, 400).Draw(g.t, "quietGap"))
	}
	g.now += gap
	g.flush(g.now)
	var idle []int
	for i, s := range g.slots {
		if s.busy < g.now {
			idle = append(idle, i)
		}
	}
	if len(idle) == 0 {
		return
	}
	si := idle[rapid.IntRange(0, len(idle)-1).Draw(g.t, "slot")]
	l := g.locks[rapid.IntRange(0, len(g.locks)-1).Draw(g.t, "lock")]
	g.act(si, l)
}

// nearExpiry sometimes has a holder whose explicit lease is about to run
// out release just before it does (often inside its Expire window: ok) or
// just after (a late release: fail).
func (g *generator) nearExpiry() bool {
	if rapid.IntRange(0, 3).Draw(g.t, "nearExpiry") != 0 {
		return false
	}
	for _, l := range g.locks {
		if l.owner < 0 || l.expiry == 0 {
			continue
		}
		si := g.slotOf(l.owner)
		at := l.expiry + int64(rapid.IntRange(-8, 8).Draw(g.t, "aroundExpiry"))
		if at <= g.now || g.slots[si].busy >= at {
			continue
		}
		g.now = at
		g.flush(at)
		s := &g.slots[si]
		call, ret := g.interval(*s)
		s.busy = ret
		g.release(si, l, Op{Process: s.id, Lock: l.name, Call: call, Return: ret})
		return true
	}
	return false
}

// nearVanish sometimes has a process try a lock right around the instant
// the last retired hold on it vanishes (often exactly at its bound).
func (g *generator) nearVanish() bool {
	if rapid.IntRange(0, 5).Draw(g.t, "nearVanish") != 0 {
		return false
	}
	for _, l := range g.locks {
		last := int64(-1)
		for _, e := range l.retired {
			last = max(last, e)
		}
		at := last + int64(rapid.IntRange(-2, 1).Draw(g.t, "aroundVanish"))
		if last < 0 || at <= g.now {
			continue
		}
		for si, s := range g.slots {
			if s.busy < at && s.id != l.owner {
				g.now = at
				g.flush(at)
				call, ret := g.interval(s)
				g.slots[si].busy = ret
				g.acquire(si, l, Op{Process: s.id, Lock: l.name, Call: call, Return: ret})
				return true
			}
		}
	}
	return false
}

// flush applies what the server does on its own before t: explicit leases
// of live owners run out (recorded as Expire), retired holds vanish.
func (g *generator) flush(t int64) {
	for _, l := range g.locks {
		if l.owner >= 0 && l.expiry != 0 && l.expiry < t {
			gran := int64(rapid.IntRange(0, 3).Draw(g.t, "granularity"))
			g.ops = append(g.ops, Op{Process: l.owner, Lock: l.name, Kind: Expire,
				Call: l.lastAcq.Call + l.lastLease, Return: l.lastAcq.Return + l.lastLease + gran, Outcome: OK})
			l.owner, l.count, l.maxLease, l.expiry = -1, 0, 0, 0
		}
		kept := l.retired[:0]
		for _, e := range l.retired {
			if e >= t {
				kept = append(kept, e)
			}
		}
		l.retired = kept
	}
}

// interval draws the call and return of an op that takes effect at now.
func (g *generator) interval(s gtSlot) (call, ret int64) {
	call = max(s.busy+1, g.now-int64(rapid.IntRange(0, 60).Draw(g.t, "back")))
	ret = g.now + int64(rapid.IntRange(0, 40).Draw(g.t, "fwd"))
	return call, ret
}

// act has the process in slot si act on l at g.now.
func (g *generator) act(si int, l *gtLock) {
	s := &g.slots[si]
	p := s.id
	call, ret := g.interval(*s)
	s.busy = ret
	o := Op{Process: p, Lock: l.name, Call: call, Return: ret}
	mine := l.owner == p
	weights := []int{10, 4, 1, 1} // acquire, release, abandon, section
	if mine {
		weights = []int{4, 8, 1, 1}
	}
	switch pickWeighted(g.t, "action", weights) {
	case 0:
		g.acquire(si, l, o)
	case 1:
		g.release(si, l, o)
	case 2:
		o.Kind, o.Outcome = Abandon, OK
		g.ops = append(g.ops, o)
		g.retire(si, o.Return, nil, 0)
	default:
		// Sections are not lock ops: the linearizability checker must ignore them.
		o.Kind, o.Outcome = Section, OK
		g.ops = append(g.ops, o)
	}
}

func (g *generator) acquire(si int, l *gtLock, o Op) {
	p := g.slots[si].id
	o.Kind = Acquire
	o.Lease = rapid.SampledFrom([]int64{0, 0, 30, 80, 100000}).Draw(g.t, "lease")
	eff := o.Lease
	if eff <= 0 {
		eff = g.watchdog
	}
	o.Blocking = rapid.Bool().Draw(g.t, "blocking")
	mine := l.owner == p
	free := l.owner < 0 && !l.retiredAt(g.now)
	switch pickWeighted(g.t, "acquireEnd", []int{20, 2, 2}) { // answered, cancelled, unknown
	case 1:
		if !mine {
			o.Outcome, o.Cancelled, o.Error = Fail, true, "context canceled"
			break
		}
		fallthrough
	case 0:
		switch {
		case mine || free:
			o.Outcome = OK
			g.grant(l, p, o, eff)
		default:
			o.Outcome, o.Blocking = Fail, false // a blocking acquire would still wait: a TryLock
		}
	case 2:
		o.Outcome, o.Error = Info, "i/o timeout"
		g.infoWindow(&o)
		if (mine || free) && rapid.Bool().Draw(g.t, "tookEffect") {
			g.grant(l, p, o, eff)
		}
		g.ops = append(g.ops, o)
		g.retire(g.slotOf(p), o.effectiveDeadline(), l, eff)
		return
	}
	if !o.Blocking {
		o.Wait = o.Return - o.Call
	}
	g.ops = append(g.ops, o)
}

// grant gives p one more hold of l at g.now.
func (g *generator) grant(l *gtLock, p int, o Op, eff int64) {
	if l.owner != p {
		l.owner, l.count, l.maxLease, l.retired = p, 0, 0, nil
	}
	l.count++
	l.maxLease = max(l.maxLease, eff)
	l.lastAcq, l.lastLease = o, eff
	l.expiry = 0
	if o.Lease > 0 {
		l.expiry = g.now + o.Lease // re-armed by every acquire
	}
}

func (g *generator) release(si int, l *gtLock, o Op) {
	p := g.slots[si].id
	o.Kind = Release
	mine := l.owner == p
	if rapid.IntRange(0, 12).Draw(g.t, "releaseUnknown") == 0 {
		o.Outcome, o.Error = Info, "EOF"
		g.infoWindow(&o)
		if mine && rapid.Bool().Draw(g.t, "tookEffect") {
			g.unhold(l)
		}
		g.ops = append(g.ops, o)
		g.retire(si, o.effectiveDeadline(), nil, 0)
		return
	}
	if mine {
		o.Outcome = OK
		g.unhold(l)
	} else {
		o.Outcome, o.Error = Fail, "not owner"
	}
	g.ops = append(g.ops, o)
}

func (g *generator) unhold(l *gtLock) {
	if l.count--; l.count == 0 {
		l.owner, l.maxLease, l.expiry = -1, 0, 0
	}
}

// infoWindow sets an info op's interval around g.now: it may take effect
// at now, possibly after its client gave up (Return < now <= Deadline).
func (g *generator) infoWindow(o *Op) {
	if rapid.Bool().Draw(g.t, "gaveUpEarly") {
		o.Return = max(o.Call, g.now-int64(rapid.IntRange(0, 20).Draw(g.t, "early")))
	}
	if d := max(o.Return, g.now) + int64(rapid.IntRange(0, 20).Draw(g.t, "deadline")); d > o.Return {
		o.Deadline = d
	}
}

func (g *generator) slotOf(p int) int {
	for i, s := range g.slots {
		if s.id == p {
			return i
		}
	}
	panic("no slot")
}

// retire retires the process of slot si at g.now (its last request could
// reach the server until deadline): its holds on every lock become retired
// holds that vanish by deadline plus their longest lease (with extra, the
// lease of an info acquire on on, counted on that lock). A fresh process
// takes the slot.
func (g *generator) retire(si int, deadline int64, on *gtLock, extra int64) {
	p := g.slots[si].id
	for _, l := range g.locks {
		if l.owner != p {
			continue
		}
		bound := deadline + l.maxLease
		if l == on {
			bound = deadline + max(l.maxLease, extra)
		}
		if l.expiry != 0 {
			bound = min(bound, l.expiry) // the explicit lease runs out on its own
		}
		e := max(g.now, bound) // often exactly at the bound
		if bound > g.now && rapid.IntRange(0, 2).Draw(g.t, "vanishAtBound") != 0 {
			e = g.now + int64(rapid.IntRange(0, int(bound-g.now)).Draw(g.t, "vanish"))
		}
		l.retired = append(l.retired, e)
		l.owner, l.count, l.maxLease, l.expiry = -1, 0, 0, 0
	}
	g.slots[si] = gtSlot{id: g.newProc(), busy: g.now}
}

func pickWeighted(t *rapid.T, label string, w []int) int {
	total := 0
	for _, x := range w {
		total += x
	}
	n := rapid.IntRange(0, total-1).Draw(t, label)
	for i, x := range w {
		if n < x {
			return i
		}
		n -= x
	}
	return len(w) - 1
}

// perturb changes one thing in h, keeping it well-formed; it reports
// whether it changed anything.
func perturb(t *rapid.T, h *History) bool {
	if len(h.Ops) == 0 {
		return false
	}
	i := rapid.IntRange(0, len(h.Ops)-1).Draw(t, "victim")
	saved := append([]Op(nil), h.Ops...)
	o := &h.Ops[i]
	switch rapid.IntRange(0, 4).Draw(t, "perturbation") {
	case 0: // flip an answer
		switch o.Outcome {
		case OK:
			o.Outcome = Fail
		case Fail:
			o.Outcome = OK
		default:
			return false
		}
	case 1: // lose a record
		h.Ops = append(h.Ops[:i], h.Ops[i+1:]...)
	case 2: // an answer becomes unknown (the process's last op only)
		o.Outcome, o.Deadline = Info, o.Return+int64(rapid.IntRange(0, 30).Draw(t, "newDeadline"))
	case 3: // move the op in time
		d := int64(rapid.IntRange(-40, 40).Draw(t, "shift"))
		o.Call, o.Return = o.Call+d, o.Return+d
	case 4: // toggle the cancel flag of an acquire
		if o.Kind != Acquire {
			return false
		}
		o.Cancelled = !o.Cancelled
	}
	if h.Validate() != nil {
		h.Ops = saved
		return false
	}
	return true
}
