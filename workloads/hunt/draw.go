package hunt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Draw is one run a hunt makes: a seed and either a plain run of a plan
// (the hunt workload's for the seed, or a shrunk one) or a scenario.
type Draw struct {
	Seed     int64
	Scenario *scenario.Scenario // nil: a plain run of Plan
	Duration time.Duration
	Plan     workloads.Plan // a plain run's plan (a scenario fixes its own)
}

// What names the draw in progress lines and run directories: the
// scenario's name, or the plan's workload.
func (d Draw) What() string {
	if d.Scenario != nil {
		return d.Scenario.Name
	}
	return d.Plan.Workload
}

// Describe is the draw in a few words: "hunt 10s, 6 processes".
func (d Draw) Describe() string {
	if d.Scenario != nil {
		return fmt.Sprintf("scenario %s %v", d.Scenario.Name, d.Duration)
	}
	if d.Plan.Processes == 0 {
		return fmt.Sprintf("%s %v", d.Plan.Workload, d.Duration) // a semaphore's: its plan is the seed's
	}
	s := fmt.Sprintf("%s %v, %d processes", d.Plan.Workload, d.Duration, d.Plan.Processes)
	if t := d.Plan.Threads(); t > 1 {
		s += fmt.Sprintf(" of %d threads", t)
	}
	if n := len(d.Plan.Locks); n > 1 {
		s += fmt.Sprintf(", %d locks", n)
	}
	if d.Plan.SharedObjects {
		s += ", shared lock objects"
	}
	if d.Plan.Phases != nil && d.Plan.Phases.LongHoldFirst {
		s += ", long hold first"
	}
	if d.Plan.CallForms {
		s += ", varied call forms"
	}
	return s
}

// ScenarioShare is the chance that a draw is a scenario (when the subject
// has any where a hunt can find something): one in ScenarioShare.
const ScenarioShare = 2

// drawer yields a hunt's draws. The sequence of seeds and choices (plain
// run or which scenario) is a pure function of the first seed and the
// scenarios: the budget and this machine only decide what becomes of a
// scenario that does not fit or cannot run (see hunter.resolve).
type drawer struct {
	rng   *rand.Rand
	next  int64 // seed of the next draw
	mixes deck  // the scenarios that mix several faults (Scenario.Mixes)
	rest  deck  // the others
	dealt int   // scenario draws so far
}

// deck deals its scenarios in an order drawn from the first seed, each
// once before any again.
type deck struct {
	cards []scenario.Scenario
	dealt int
}

func (d *deck) deal() scenario.Scenario {
	sc := d.cards[d.dealt%len(d.cards)]
	d.dealt++
	return sc
}

// newDrawer deals the scenarios that mix several faults every other
// scenario draw, starting with the first, since one of their runs meets
// the triggers of several others; the rest in between.
func newDrawer(seed int64, scs []scenario.Scenario) *drawer {
	cards := slices.Clone(scs)
	shuffle := rand.New(rand.NewPCG(uint64(seed), 0xDEC4))
	shuffle.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	d := &drawer{rng: rand.New(rand.NewPCG(uint64(seed), 0x4875E7)), next: seed}
	for _, sc := range cards {
		if len(sc.Mixes) > 0 {
			d.mixes.cards = append(d.mixes.cards, sc)
		} else {
			d.rest.cards = append(d.rest.cards, sc)
		}
	}
	return d
}

// draw returns the next seed and, for one draw in ScenarioShare on
// average, a scenario (nil: a plain run): a mix every other scenario
// draw, otherwise the next of the rest.
func (d *drawer) draw() (int64, *scenario.Scenario) {
	seed := d.next
	d.next++
	if d.rng.IntN(ScenarioShare) != 0 || len(d.mixes.cards)+len(d.rest.cards) == 0 {
		return seed, nil
	}
	from := &d.rest
	if len(d.rest.cards) == 0 || len(d.mixes.cards) > 0 && d.dealt%2 == 0 {
		from = &d.mixes
	}
	d.dealt++
	sc := from.deal()
	return seed, &sc
}

// skip makes n draws and returns d, to go on from the next.
func (d *drawer) skip(n int) *drawer {
	for range n {
		d.draw()
	}
	return d
}

// Scenarios are the catalog's scenarios where a hunt of subj can find
// something (scenario.Requirement.Hunted), subj judged as the lock it
// claims to be (a mutant as a correct lock): those it fits (not skipped
// for its topology, as nightly decides) and must pass, then the unsafe
// ones, where nothing may go beyond the fault's allowance. A scenario
// that only measures the subject, or where it is known to break, can find
// nothing.
func Scenarios(subj subject.Subject) []scenario.Scenario {
	var pass, unsafe []scenario.Scenario
	for _, sc := range scenario.Catalog() {
		r := sc.Require(subj)
		switch {
		case sc.Fits(subj) != "" || !r.Hunted():
		case r.Tolerates == nil:
			pass = append(pass, sc)
		default:
			unsafe = append(unsafe, sc)
		}
	}
	return append(pass, unsafe...)
}

// Plan is the hunt workload's plan for seed: the plan of a plain draw
// before shrinking.
func Plan(seed int64) workloads.Plan {
	w, err := workloads.LookupWorkload("hunt")
	if err != nil {
		panic(err) // the hunt workload is built in
	}
	return w.Generate(seed)
}

// DrawThreads draws, from seed, how the owners of plan share client
// processes: one plain draw in three puts them into two client processes
// of 2 to 4 threads each (as many owners as before, give or take: only
// where they run changes), so that a hunt meets the bugs of threads on one
// client instance (a shared renewal map, a shared pub/sub entry) without
// running more owners. The others keep one owner per process.
func DrawThreads(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x7EAD5))
	if rng.IntN(3) != 0 {
		return plan
	}
	owners := plan.Owners()
	plan.ThreadsPerProcess = min(max(owners/2, 2), 4)
	plan.Processes = 2
	return plan
}

// WaitSiblings has the owners that share a client process with a long
// holder wait on its lock (Phases.SiblingsWait), when plan groups owners
// and has long holds: a hold that runs out under its holder is then taken
// over by a thread of the same client, where what the lapse left (a
// renewal entry, a local lock) lives, rather than by whichever process
// drew that lock. Owners that churn other locks meanwhile gain nothing a
// long hold's few leases would not leave them in the rest of the round.
// The plan's phases are copied, not changed.
func WaitSiblings(plan workloads.Plan) workloads.Plan {
	if plan.Threads() < 2 || plan.Phases == nil || plan.Phases.LongHold.Max <= 0 {
		return plan
	}
	ph := *plan.Phases
	ph.SiblingsWait = true
	plan.Phases = &ph
	return plan
}

// DrawObjects draws, from seed, whether the client processes of plan keep
// one lock object per name (Plan.SharedObjects): one plain draw in two, so
// that a hunt meets the bugs of an object that carries state from one hold
// to the next (an earlier hold's lease), as applications that keep a lock
// in a field do, and still runs the fresh objects of the other half.
func DrawObjects(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x0B1EC7))
	plan.SharedObjects = rng.IntN(2) == 0
	return plan
}

// DrawReadWrite draws, from seed, whether a plain draw of a read-write
// lock runs the read-write workload (readers, writers, downgrades, long
// reads, stray unlocks of either side) instead of plan: one draw in two,
// so that a hunt meets the bugs of the lock's read side too, and still
// runs the hunt's phases on its write side in the other half.
func DrawReadWrite(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x2EAD))
	if rng.IntN(2) != 0 {
		return plan
	}
	w, err := workloads.LookupWorkload("rwlock")
	if err != nil {
		panic(err) // the read-write workload is built in
	}
	return w.Generate(seed)
}

// DrawLongHoldFirst draws, from seed, whether a plain draw whose phases have
// long holds makes its first long hold before its first overruns
// (Phases.LongHoldFirst): one such draw in two, so that a hunt of short
// runs meets the bugs that show on a client's next long hold after one that
// failed a renewal or ran out, and still runs the overruns first, early in
// the run, in the other half. The plan's phases are copied, not changed.
func DrawLongHoldFirst(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x10F1257))
	if plan.Phases == nil || plan.Phases.LongHold.Max <= 0 || rng.IntN(2) != 0 {
		return plan
	}
	ph := *plan.Phases
	ph.LongHoldFirst = true
	plan.Phases = &ph
	return plan
}

// DrawForms draws, from seed, whether the plan's acquires and releases vary
// the library's call forms (Plan.CallForms): one plain draw in two, so that
// a hunt meets the bugs that live in one form of a call (a lease passed on
// in the wrong unit, a wait of -1), and still runs the driver's default
// form, the one most applications call, in the other half. A plan that
// varies its forms takes its lease in whole seconds (rounded up), so that
// a call can give it in SECONDS, as applications mostly do.
func DrawForms(seed int64, plan workloads.Plan) workloads.Plan {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xF0235))
	plan.CallForms = rng.IntN(2) == 0
	if plan.CallForms {
		if r := plan.Lease % time.Second; r != 0 {
			plan.Lease += time.Second - r
		}
	}
	return plan
}
