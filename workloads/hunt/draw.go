package hunt

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lockcheck/lockcheck/model"
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
	if d.Plan.SharedObjects {
		s += ", shared lock objects"
	}
	if d.Plan.CallForms {
		s += ", varied call forms"
	}
	return s
}

// ScenarioShare is the chance that a draw is a scenario (when the subject
// has any it must pass): one in ScenarioShare.
const ScenarioShare = 4

// drawer yields a hunt's draws. The sequence of seeds and choices (plain
// run or which scenario) is a pure function of the first seed and the
// scenarios: the budget and this machine only decide what becomes of a
// scenario that does not fit or cannot run (see hunter.resolve).
type drawer struct {
	rng       *rand.Rand
	next      int64               // seed of the next draw
	scenarios []scenario.Scenario // the scenarios the subject must pass
}

func newDrawer(seed int64, scs []scenario.Scenario) *drawer {
	return &drawer{rng: rand.New(rand.NewPCG(uint64(seed), 0x4875E7)), next: seed, scenarios: scs}
}

// draw returns the next seed and, for one draw in ScenarioShare on
// average, a scenario (nil: a plain run).
func (d *drawer) draw() (int64, *scenario.Scenario) {
	seed := d.next
	d.next++
	// Both numbers are drawn every time, so the sequence does not depend
	// on how many scenarios there are to pick from.
	pick, idx := d.rng.IntN(ScenarioShare), d.rng.IntN(1<<30)
	if pick != 0 || len(d.scenarios) == 0 {
		return seed, nil
	}
	sc := d.scenarios[idx%len(d.scenarios)]
	return seed, &sc
}

// Scenarios are the catalog's scenarios subj must pass: those that run
// it (not skipped for its topology, as nightly decides) and expect a valid
// verdict. A scenario where the subject is expected unsafe, or that only
// measures it, can find nothing.
func Scenarios(subj subject.Subject) []scenario.Scenario {
	var out []scenario.Scenario
	for _, sc := range scenario.Catalog() {
		if exp := sc.Expectation(subj); exp.Skip == "" && exp.Verdict == model.Valid {
			out = append(out, sc)
		}
	}
	return out
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
