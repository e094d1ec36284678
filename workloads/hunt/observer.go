package hunt

import (
	"time"

	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// Observer hears what a hunt does, in the order it happens; the hunt
// itself prints nothing. Its methods are called from the goroutine that
// called Run, one at a time. Embed NopObserver to hear only some of it.
type Observer interface {
	// Started: the hunt's Redis and directory are ready and its budget
	// starts now.
	Started(Start)
	// Recorded: the executor Run builds wrote a run directory (out.Dir)
	// for subject; out holds its warnings and what could not be written,
	// err an error that left no run to judge. It comes before the Ran of
	// the same run.
	Recorded(subject string, out workloads.RunOutcome, err error)
	// Ran: one run finished and was judged. label is "run N" for the Nth
	// draw of the search, "shrink" for a run of a shrink candidate.
	Ran(label string, t Trial)
	// Skipped: scenario cannot run here (err wraps ErrTopology); the hunt
	// leaves it out from now on and makes a plain run instead.
	Skipped(scenario string, err error)
	// Shrunk: the candidate of a shrink step was run tries times until
	// ShrinkVerdict decided: kept says most runs still failed (it is now
	// the simplest draw), else too many passed.
	Shrunk(step string, kept bool, tries int)
	// ShrinkStopped: a shrink candidate's run could not be made (err):
	// shrinking ends with the simplest draw so far.
	ShrinkStopped(step string, err error)
}

// Start is what a hunt is about to do.
type Start struct {
	Subject     string
	Seed        int64
	Budget      time.Duration
	RunDuration time.Duration
	// Target describes the Redis of the plain runs (no password).
	Target string
	// Redis is Config.Redis: when set, the hunt draws no scenarios.
	Redis string
	// Scenarios are those the hunt may draw (one draw in ScenarioShare), in
	// catalog order.
	Scenarios []scenario.Scenario
	// Dir is the hunt's directory: its run directories and plan.json.
	Dir string
}

// NopObserver ignores everything.
type NopObserver struct{}

func (NopObserver) Started(Start)                                {}
func (NopObserver) Recorded(string, workloads.RunOutcome, error) {}
func (NopObserver) Ran(string, Trial)                            {}
func (NopObserver) Skipped(string, error)                        {}
func (NopObserver) Shrunk(string, bool, int)                     {}
func (NopObserver) ShrinkStopped(string, error)                  {}
