package hunt

import "github.com/lockcheck/lockcheck/model"

// Tally counts a hunt's draws (shrink runs apart).
type Tally struct {
	// Runs are the draws run; Plain of them were plain runs, the rest
	// scenario runs (Scenarios: runs per scenario).
	Runs, Plain int
	Scenarios   map[string]int
	// First and Last are the seeds of the first and the last draw.
	First, Last int64
	// Unknown are the run directories that decided nothing (verdict
	// unknown), Degraded those of runs that did not go as asked.
	Unknown  []string
	Degraded []string
}

func (t *Tally) add(r Trial) {
	if t.Runs == 0 {
		t.First = r.Draw.Seed
	}
	t.Runs++
	t.Last = r.Draw.Seed
	if r.Draw.Scenario == nil {
		t.Plain++
	} else {
		if t.Scenarios == nil {
			t.Scenarios = map[string]int{}
		}
		t.Scenarios[r.Draw.Scenario.Name]++
	}
	switch {
	case r.Degraded != nil:
		t.Degraded = append(t.Degraded, r.Dir)
	case r.Report.Verdict == model.Unknown:
		t.Unknown = append(t.Unknown, r.Dir)
	}
}
