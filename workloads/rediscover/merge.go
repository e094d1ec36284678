package rediscover

import (
	"encoding/json"
	"fmt"
	"io"
)

// Merge joins the reports of rediscoveries run with the same settings
// (seed, budget, run length) over parts of the catalog, as runs side by
// side make them: the rows in the order given, a bug found in several
// reports keeping its last row, and the totals counted again. Reports of
// other settings are refused (ErrConfig): one page states one budget and
// one seed.
func Merge(reps ...*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("%w: no report to merge", ErrConfig)
	}
	first := reps[0]
	out := &Report{Seed: first.Seed, Budget: first.Budget, RunDuration: first.RunDuration}
	at := map[string]int{}
	for i, rep := range reps {
		if rep.Seed != first.Seed || rep.Budget != first.Budget || rep.RunDuration != first.RunDuration {
			return nil, fmt.Errorf("%w: report %d has seed %d, budget %v, runs of %v; report 1 has seed %d, budget %v, runs of %v",
				ErrConfig, i+1, rep.Seed, rep.Budget, rep.RunDuration, first.Seed, first.Budget, first.RunDuration)
		}
		for _, row := range rep.Rows {
			if j, ok := at[row.Bug.ID]; ok {
				out.Rows[j] = row
				continue
			}
			at[row.Bug.ID] = len(out.Rows)
			out.Rows = append(out.Rows, row)
		}
	}
	out.total()
	return out, nil
}

// Rejudge judges rep's rows again against bugs (the catalog as it is now:
// a fixed release's other known bugs, a trigger marked missing), where a
// row's bug is among them, and counts the totals again. The hunts
// themselves are kept as they were.
func (rep *Report) Rejudge(bugs []Bug) {
	byID := map[string]Bug{}
	for _, b := range bugs {
		byID[b.ID] = b
	}
	for i := range rep.Rows {
		if b, ok := byID[rep.Rows[i].Bug.ID]; ok {
			rep.Rows[i].Bug = b
			rep.Rows[i].judge()
		}
	}
	rep.total()
}

// ReadJSON reads a report as WriteJSON wrote it.
func ReadJSON(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("rediscover report: %w", err)
	}
	return &rep, nil
}
