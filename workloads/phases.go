package workloads

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// Phases shape a run in time so that the bugs that hide in steady churn show
// within seconds. The run repeats one round, drawn afresh each time from the
// run's seed:
//
//	churn → overruns → quiet → storm → quiet → churn → long hold → storm → quiet → …
//
// (with LongHoldFirst the long hold takes the overruns' place in the first
// round, and the two go on taking turns from there).
//
// Churn is the plan's own mix. In a long hold one process (the first to
// start a cycle in it) makes one special cycle, and in an overrun phase
// processes make overrun cycles one after the other, while the others go
// on churning: they wait for the lock the special cycle holds and take it
// the moment it is free. The last overrun's lease runs out in the quiet
// phase after it, so a waiter that expected an unlock message is left on
// a free lock. A phase a plan leaves at zero (or that the run
// cannot do: a long hold without a watchdog, or longer than half the run)
// is left out.
//
// On a read-write lock, one overrun phase in two is shared
// (worker_shared.go): instead of overruns, readers of the plan's first lock
// that die holding, each with the phase's lease, beside an anchor reader
// that holds under the watchdog until the phase ends. A reader's lapse
// must end that reader's hold alone: a lock that lets the latest reader's
// lease set the expiry of the readers' shared state cuts the anchor's hold
// short, and a writer waiting is granted inside its section.
type Phases struct {
	// Churn is how long the plan's own mix runs between special phases.
	Churn Range `json:"churn"`
	// Storm is how long every process makes blocking Lock calls with no
	// hold and no think time: hand-offs as fast as the lock allows, so that
	// when the storm ends some waiter has likely just missed a wake-up.
	Storm Range `json:"storm,omitempty"`
	// Quiet is how long no process starts an acquire (acquires in flight go
	// on): a waiter that missed its wake-up now waits on a free lock, which
	// the liveness checker's free-wait bound (RunConfig.FreeWait) sees.
	Quiet Range `json:"quiet,omitempty"`
	// LongHold, in watchdog leases, is how long the special process of a
	// long-hold phase holds a watchdog-renewed lock (Lock(ctx, 0)): several
	// leases, kept by renewal alone. Zero: no long holds.
	LongHold Scale `json:"long_hold,omitempty"`
	// Outage, in watchdog leases, is how long the long holder's client
	// connections are cut halfway through its hold (every open connection
	// closed, dials refused, Deps.Reconnect) before it reconnects: longer
	// than a renewal period, so a renewal fails, and short enough that a
	// renewal retried after the outage keeps the hold. Zero: no reconnects.
	Outage Scale `json:"outage,omitempty"`
	// OverrunLease is the explicit lease of an overrun phase's hold, and
	// Overrun how long its holder keeps working past that lease before its
	// late unlock, which must fail (not the owner) without freeing the
	// next holder. The hold's end is recorded as a model.Expire op, its
	// critical section as an Overrun section. Zero: no overruns.
	OverrunLease Range `json:"overrun_lease,omitempty"`
	Overrun      Range `json:"overrun,omitempty"`
	// LongHoldFirst starts the run's special phases with the long hold
	// instead of the overruns. What a long hold leaves in its client (a
	// renewal that failed in its outage, a hold that ran out under it)
	// shows on that client's next long hold of the lock (worker.phaseTurn),
	// which a short run has room for only when the first long hold comes
	// early. False: overruns first, as every plan before it.
	LongHoldFirst bool `json:"long_hold_first,omitempty"`
	// SiblingsWait has the other owners of a long holder's client process
	// (Plan.ThreadsPerProcess > 1) make their cycles on the long hold's
	// lock while it is in its section, and the owners of other client
	// processes on the plan's other locks (takeover.go), so that a hold
	// that runs out under its holder is taken over inside the same
	// client, where state the lapse left (a renewal entry, a local lock)
	// lives. False: every owner draws from all the plan's locks, as every
	// plan before it.
	SiblingsWait bool `json:"siblings_wait,omitempty"`
}

// Scale is a closed interval of multiples of some unit (the run's watchdog
// lease), drawn uniformly.
type Scale struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Of draws a multiple of unit in [Min, Max] from rng.
func (s Scale) Of(unit time.Duration, rng *rand.Rand) time.Duration {
	f := s.Min
	if s.Max > s.Min {
		f += rng.Float64() * (s.Max - s.Min)
	}
	return time.Duration(f * float64(unit))
}

func (s Scale) zero() bool { return s.Max <= 0 }

// validate reports the first thing wrong with ph.
func (ph *Phases) validate() error {
	if ph.Churn.Max <= 0 {
		return fmt.Errorf("plan: phases: churn [%v, %v] must be longer than 0", ph.Churn.Min, ph.Churn.Max)
	}
	ranges := map[string]Range{"churn": ph.Churn, "storm": ph.Storm, "quiet": ph.Quiet, "overrun_lease": ph.OverrunLease, "overrun": ph.Overrun}
	for name, r := range ranges {
		if r.Min < 0 || r.Max < r.Min {
			return fmt.Errorf("plan: phases: %s range [%v, %v] is not a valid interval", name, r.Min, r.Max)
		}
	}
	for name, s := range map[string]Scale{"long_hold": ph.LongHold, "outage": ph.Outage} {
		if s.Min < 0 || s.Max < s.Min {
			return fmt.Errorf("plan: phases: %s [%g, %g] leases is not a valid interval", name, s.Min, s.Max)
		}
	}
	switch {
	case !ph.LongHold.zero() && ph.LongHold.Min < 1:
		return fmt.Errorf("plan: phases: long holds of %g leases do not outlast one lease", ph.LongHold.Min)
	case !ph.Outage.zero() && (ph.Outage.Max >= 0.5 || ph.Outage.Min <= 1.0/3):
		return fmt.Errorf("plan: phases: outages of [%g, %g] leases must outlast a renewal period (1/3) and leave time to renew (< 1/2)", ph.Outage.Min, ph.Outage.Max)
	case ph.OverrunLease.Max > 0 && ph.OverrunLease.Min < 50*time.Millisecond:
		return fmt.Errorf("plan: phases: overrun leases from %v are too short to tell an expiry from a slow reply (want >= 50ms)", ph.OverrunLease.Min)
	}
	return nil
}

// phaseKind is what processes do in a phase.
type phaseKind uint8

const (
	phaseChurn phaseKind = iota
	phaseStorm
	phaseQuiet
	phaseLongHold
	phaseOverrun
)

func (k phaseKind) String() string {
	return [...]string{"churn", "storm", "quiet", "long-hold", "overrun"}[k]
}

// phase is one stretch of a run's schedule, on the run's clock.
type phase struct {
	kind       phaseKind
	start, end time.Duration
	// busy is set while a worker makes the phase's special cycle; once
	// (long hold) says the phase has only one.
	busy, once atomic.Bool
	// hold is the special cycle's hold (long hold: the whole hold; overrun:
	// the lease), outage its outage, over how far it runs past the lease.
	hold, outage, over time.Duration
	// lock is the lock the special cycle takes ("": one drawn from the
	// plan's locks).
	lock string
	// shared marks an overrun phase of a read-write lock made of dying
	// readers beside an anchor reader; anchor is set once the anchor's
	// cycle is claimed.
	shared bool
	anchor atomic.Bool
	turns  atomic.Int32 // dying readers claimed (turn)
}

// claim reports whether the caller, starting a cycle at run time now, makes
// one of p's special cycles: a long-hold phase has one, an overrun phase
// one after the other while there is time for another. The caller calls
// done when its special cycle ends.
func (p *phase) claim(now time.Duration) bool {
	switch {
	case p.kind == phaseLongHold:
		return p.once.CompareAndSwap(false, true)
	case p.kind == phaseOverrun && now+p.hold/2 < p.end:
		// The last may run out after the phase, in the quiet one after it.
		return p.busy.CompareAndSwap(false, true)
	}
	return false
}

func (p *phase) done() { p.busy.Store(false) }

// shareDrain is how long a shared overrun phase starts no cycle: the
// acquires in flight from the churn before it end, so that the workers
// are free to take the phase's anchor and dying readers (a write that
// waited for the anchor would wait the whole phase).
const shareDrain = 100 * time.Millisecond

// draining reports whether p is a shared overrun phase that starts no
// cycle yet at now.
func (p *phase) draining(now time.Duration) bool {
	return p.shared && now < p.start+shareDrain
}

// turn reports whether the caller, starting a cycle at run time now, makes
// one of a shared overrun phase's dying readers, and which (from 0): one
// for each of the phase's overrun slots while there is time for another,
// and at most owners-2 of them, so that a writer is left to wait beside
// the anchor.
func (p *phase) turn(now time.Duration, owners int) (int, bool) {
	if !p.shared || p.windingDown(now) {
		return 0, false
	}
	k := int(p.turns.Add(1)) - 1
	return k, k < min(overrunsPerPhase, owners-2)
}

// slot is when the k-th dying reader of a shared overrun phase p may
// begin: one after the other from the end of the drain, each in a lease,
// its overrun and a margin.
func (p *phase) slot(k int) time.Duration {
	return p.start + shareDrain + time.Duration(k)*p.overrunSpan()
}

// overrunSpan is how long one of an overrun phase's overruns takes: its
// lease, its overrun and a margin.
func (p *phase) overrunSpan() time.Duration { return p.hold + p.over + 50*time.Millisecond }

// anchors reports whether the caller, starting a cycle at run time now,
// makes the anchor of a shared overrun phase: the first to ask does.
func (p *phase) anchors(now time.Duration) bool {
	return p.shared && now < p.end && p.anchor.CompareAndSwap(false, true)
}

// windingDown reports whether an overrun phase has no time for another
// overrun at now: no cycle starts then, so that the last overrun's lease
// runs out with nobody about to release (and publish) but its waiters.
func (p *phase) windingDown(now time.Duration) bool {
	return p.kind == phaseOverrun && now+p.hold/2 >= p.end
}

// schedule is a run's phases in time order, covering [0, until).
type schedule []*phase

// at returns the phase at run time t (the last one after the end; nil for
// an empty schedule).
func (s schedule) at(t time.Duration) *phase {
	for _, p := range s {
		if t < p.end {
			return p
		}
	}
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// longHolds reports whether s has long-hold phases (scheduleFor leaves
// them out when the subject renews nothing, or one would not fit).
func (s schedule) longHolds() bool {
	return slices.ContainsFunc(s, func(p *phase) bool { return p.kind == phaseLongHold })
}

// scheduleFor draws the schedule of a run: ph's rounds from the run's seed
// until the run's duration. watchdog is the lease of
// holds taken with lease <= 0, renewed says the subject renews them (long
// holds are left out otherwise, and when one would last over half the run),
// reconnect that the runner can cut a client's connections, and readWrite
// that the lock has a read side (one overrun phase in two is then shared,
// a draw no other lock makes).
func scheduleFor(ph *Phases, seed int64, duration, watchdog time.Duration, renewed, reconnect, readWrite bool) schedule {
	if ph == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed0f9a5e5))
	var s schedule
	at := time.Duration(0)
	add := func(p *phase, d time.Duration) {
		if d <= 0 {
			return
		}
		p.start, p.end = at, at+d
		at = p.end
		s = append(s, p)
	}
	var specials []phaseKind // the special phases the run can do, in turn
	if !ph.LongHold.zero() && renewed && ph.LongHold.Min*float64(watchdog) <= float64(duration/2) {
		specials = append(specials, phaseLongHold)
	}
	if ph.OverrunLease.Max > 0 {
		specials = append([]phaseKind{phaseOverrun}, specials...) // first: it is short
	}
	if ph.LongHoldFirst {
		slices.Reverse(specials) // a long hold first, when there is one
	}
	for round := 0; at < duration; round++ {
		add(&phase{kind: phaseChurn}, max(ph.Churn.Draw(rng), time.Millisecond))
		if len(specials) > 0 {
			special := &phase{kind: specials[round%len(specials)]}
			switch special.kind {
			case phaseLongHold:
				special.hold = ph.LongHold.Of(watchdog, rng)
				if !ph.Outage.zero() && reconnect {
					special.outage = ph.Outage.Of(watchdog, rng)
				}
				add(special, special.hold+watchdog/2)
			case phaseOverrun:
				special.hold, special.over = ph.OverrunLease.Draw(rng), ph.Overrun.Draw(rng)
				special.shared = readWrite && rng.IntN(2) == 0
				add(special, overrunsPerPhase*special.overrunSpan())
				// The last overrun's lease runs out in this quiet phase:
				// a waiter that waits for an unlock message only (none
				// comes when a lease runs out) now sits on a free lock.
				add(&phase{kind: phaseQuiet}, ph.Quiet.Draw(rng))
			}
		}
		add(&phase{kind: phaseStorm}, ph.Storm.Draw(rng))
		add(&phase{kind: phaseQuiet}, ph.Quiet.Draw(rng))
	}
	return s
}

// overrunsPerPhase is about how many overruns, one after the other, an
// overrun phase has time for: each late unlock is a chance to free the
// next holder, and the next holder may have released already.
const overrunsPerPhase = 5

// phaseWarnings says which of the plan's phases the run leaves out.
func (r *runner) phaseWarnings() []string {
	ph := r.plan.Phases
	if ph == nil {
		return nil
	}
	var out []string // a lock without a watchdog gets no long holds: by design, no warning
	if !ph.LongHold.zero() && !r.subj.NoWatchdog && !ph.Outage.zero() && r.reconnect == nil {
		out = append(out, "no reconnects: this target cannot cut a client's connections (Deps.Reconnect)")
	}
	return out
}
