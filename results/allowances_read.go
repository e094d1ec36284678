package results

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/lockcheck/lockcheck/model"
)

// RunAllowances reads what the fault-allowance checker finds allowed the
// anomalies of the run in dir, by checking its recorded history again
// (model.Result.Allowed).
type RunAllowances func(dir string) ([]string, error)

// Rechecks are what a page asks of a run's recorded history checked again
// by the running build (its checkers and the run's check options); a nil
// field asks nothing.
type Rechecks struct {
	// Allowances: see RunAllowances.
	Allowances RunAllowances
	// NeedsWire says the verdicts of the run in dir differ when it is
	// checked without its wire trace: a page keeps the trace of such a
	// run (and of no other: most are not needed, and they are large).
	NeedsWire func(dir string) (bool, error)
}

// readAllowances gives each cell of rep whose break is expected (a
// tolerated checker Invalid, no allowance named) and whose record predates
// CheckerVerdict.Allowed the fault-allowance checker's allowances, read
// from its run's history by read; dir is the directory rep's run
// directories are relative to. A cell whose run is not here is left as
// recorded.
func readAllowances(dir string, rep *Report, read RunAllowances) error {
	if read == nil {
		return nil
	}
	for i := range rep.Rows {
		for j := range rep.Rows[i].Cells {
			c := &rep.Rows[i].Cells[j]
			k := slices.IndexFunc(c.Checkers, func(cv CheckerVerdict) bool { return cv.Checker == model.CheckAllowance })
			if k < 0 || !c.wantsAllowances(c.Checkers[k]) {
				continue
			}
			run := filepath.Join(dir, filepath.FromSlash(c.Dir))
			if keptName(run, HistoryFile) == "" {
				continue // not here (a part run on another machine)
			}
			allowed, err := read(run)
			if err != nil {
				return fmt.Errorf("the allowances of %s: %w", c.Key(), err)
			}
			c.Checkers[k].Allowed = allowed
		}
	}
	return nil
}

// wantsAllowances says c's record of the fault-allowance checker, fa,
// lacks the allowances a holds* cell shows: fa found nothing beyond the
// faults, some tolerated checker broke without naming what allowed it,
// and the run is here to read.
func (c MatrixCell) wantsAllowances(fa CheckerVerdict) bool {
	if fa.Verdict != model.Valid || len(fa.Allowed) > 0 || c.Dir == "" || c.Error != "" {
		return false
	}
	for _, cv := range c.Checkers {
		if cv.Verdict == model.Invalid && cv.AllowedBy == "" && slices.Contains(c.Tolerated, cv.Checker) {
			return true
		}
	}
	return false
}

// readSignatures gives each cell of rep with a violation whose record
// predates MatrixCell.Signatures the signatures of the report its run
// recorded (Summary.Signatures); dir is the directory rep's run
// directories are relative to. A cell whose run is not here is left as
// recorded.
func readSignatures(dir string, rep *Report) error {
	for i := range rep.Rows {
		for j := range rep.Rows[i].Cells {
			c := &rep.Rows[i].Cells[j]
			if c.Verdict != model.Invalid || len(c.Signatures) > 0 || c.Dir == "" {
				continue
			}
			s, err := loadSummary(filepath.Join(dir, filepath.FromSlash(c.Dir)))
			if err != nil {
				return fmt.Errorf("the signatures of %s: %w", c.Key(), err)
			}
			if s != nil { // else not here (a part run on another machine)
				c.Signatures = s.Signatures
			}
		}
	}
	return nil
}
