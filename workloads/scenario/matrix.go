package scenario

import (
	"context"
	"errors"
	"fmt"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Cell is one run of the matrix.
type Cell struct {
	Scenario Scenario
	Subject  subject.Subject
	Seed     int64
}

// Outcome is a cell's result.
type Outcome struct {
	Cell
	Expect Expect
	// Report is the checkers' verdict (zero when Err is set).
	Report model.Report
	// Err is an infrastructure error: the run could not be made, or did
	// not get the faults it asked for, twice (Retried).
	Err error
	// Retried is the first attempt's infrastructure error when the cell
	// was run a second time (nil when it was not): a driver that did not
	// start on a loaded machine is no verdict, and the second attempt,
	// with the same seed, is the cell's.
	Retried error
	// Dir is the run directory, if the runner wrote one.
	Dir string
	// OK says the report met the expectation (false when Err is set).
	OK bool
	// Why says how it did not.
	Why string
}

// RunCell runs one cell and returns its report and run directory. An error
// means the cell's run is not a verdict (infrastructure).
type RunCell func(ctx context.Context, c Cell) (model.Report, string, error)

// Matrix runs every scenario × subject × seed in that order, one at a time,
// and compares each verdict with the scenario's expectation for the subject.
// A cell whose run could not be made is run once more (Outcome.Retried).
// done, if set, is called after each cell. It stops early when ctx ends.
func Matrix(ctx context.Context, scenarios []Scenario, subjects []subject.Subject, seeds []int64, run RunCell, done func(Outcome)) []Outcome {
	return matrix(ctx, nil, scenarios, subjects, seeds, run, done)
}

// matrix is Matrix over the cells keep accepts (nil: all).
func matrix(ctx context.Context, keep func(Cell) bool, scenarios []Scenario, subjects []subject.Subject, seeds []int64, run RunCell, done func(Outcome)) []Outcome {
	var out []Outcome
	for _, sc := range scenarios {
		for _, subj := range subjects {
			for _, seed := range seeds {
				if ctx.Err() != nil {
					return out
				}
				c := Cell{Scenario: sc, Subject: subj, Seed: seed}
				if keep != nil && !keep(c) {
					continue
				}
				o := Outcome{Cell: c, Expect: sc.Expectation(subj)}
				if o.Expect.Skip != "" {
					o.OK, o.Why = true, o.Expect.Skip
				} else if o.Report, o.Dir, o.Err = runTwice(ctx, c, run, &o.Retried); o.Err == nil {
					o.OK, o.Why = o.Expect.Match(o.Report)
				} else {
					o.Why = o.Err.Error()
				}
				out = append(out, o)
				if done != nil {
					done(o)
				}
			}
		}
	}
	return out
}

// runTwice runs c, and once more when the run could not be made (an
// infrastructure error while ctx lives), keeping the first error in
// retried.
func runTwice(ctx context.Context, c Cell, run RunCell, retried *error) (model.Report, string, error) {
	rep, dir, err := run(ctx, c)
	if err == nil || ctx.Err() != nil {
		return rep, dir, err
	}
	*retried = err
	return run(ctx, c)
}

// ErrUnexpected and ErrInfrastructure summarise a matrix (see Verdict).
var (
	ErrUnexpected     = errors.New("unexpected verdict")
	ErrInfrastructure = errors.New("infrastructure error")
)

// Verdict returns nil when every cell met its expectation, an error wrapping
// ErrInfrastructure when a cell could not run, else one wrapping
// ErrUnexpected (counted).
func Verdict(outs []Outcome) error {
	var infra, bad int
	for _, o := range outs {
		switch {
		case o.Err != nil:
			infra++
		case !o.OK:
			bad++
		}
	}
	switch {
	case infra > 0:
		return fmt.Errorf("%w: %d of %d runs (and %d unexpected verdicts)", ErrInfrastructure, infra, len(outs), bad)
	case bad > 0:
		return fmt.Errorf("%w: %d of %d runs", ErrUnexpected, bad, len(outs))
	}
	return nil
}
