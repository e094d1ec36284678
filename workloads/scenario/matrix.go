package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

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
	// not get the faults it asked for.
	Err error
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
				} else if o.Report, o.Dir, o.Err = run(ctx, c); o.Err == nil {
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

// row groups the outcomes of one scenario × subject.
type row struct {
	scenario, subject string
	safe              bool
	expect            Expect
	outs              []Outcome
}

func rows(outs []Outcome) []*row {
	var rs []*row
	idx := map[string]*row{}
	for _, o := range outs {
		k := o.Scenario.Name + "\x00" + o.Subject.Name
		r := idx[k]
		if r == nil {
			r = &row{scenario: o.Scenario.Name, subject: o.Subject.Name, safe: o.Scenario.Safe, expect: o.Expect}
			idx[k] = r
			rs = append(rs, r)
		}
		r.outs = append(r.outs, o)
	}
	return rs
}

// got renders one outcome: the combined verdict, with the checkers that
// said invalid, and "!" when it was not the expected one.
func got(o Outcome) string {
	if o.Err != nil {
		return "ERROR"
	}
	if o.Expect.Skip != "" {
		return "skipped"
	}
	s := string(o.Report.Verdict)
	var bad []string
	for _, r := range o.Report.Results {
		if r.Verdict == model.Invalid {
			bad = append(bad, abbrev(r.Checker))
		}
	}
	if len(bad) > 0 {
		s += " (" + strings.Join(bad, ",") + "; " + string(o.Report.Class()) + ")" // the class never empty: every checker has one
	}
	if !o.OK {
		s += " !"
	}
	return s
}

// abbrev shortens checker names for the matrix.
func abbrev(checker string) string {
	switch checker {
	case model.CheckLinearizable:
		return "lin"
	case model.CheckMutualExclusion:
		return "mutex"
	case model.CheckFencing:
		return "fence"
	case model.CheckFairness:
		return "fair"
	case model.CheckLiveness:
		return "live"
	case model.CheckContract:
		return "timing"
	}
	return checker
}

// detected1 says whether a cell detected the violation: its verdict is
// invalid and every checker its expectation requires to fire did (a cell
// made invalid only by a bystander did not detect it).
func detected1(o Outcome) bool {
	if o.Err != nil || o.Report.Verdict != model.Invalid {
		return false
	}
	for c, want := range o.Expect.Checkers {
		if want != model.Invalid {
			continue
		}
		if r, ok := o.Report.Result(c); !ok || r.Verdict != model.Invalid {
			return false
		}
	}
	return true
}

// tableRows returns the matrix's header and rows: scenario, subject,
// expected, one column per seed, detection rate (unsafe scenarios: cells
// where the checkers that own the property fired), and whether the row is
// as expected.
func tableRows(outs []Outcome) ([]string, [][]string) {
	rs := rows(outs)
	nseeds := 0
	for _, r := range rs {
		nseeds = max(nseeds, len(r.outs))
	}
	header := []string{"scenario", "subject", "expected"}
	for i := range nseeds {
		header = append(header, fmt.Sprintf("run %d", i+1))
	}
	header = append(header, "detected", "as expected")
	var body [][]string
	for _, r := range rs {
		line := []string{r.scenario, r.subject, r.expect.Label}
		detected, ok := 0, 0
		for _, o := range r.outs {
			line = append(line, fmt.Sprintf("%d: %s", o.Seed, got(o)))
			if detected1(o) {
				detected++
			}
			if o.OK {
				ok++
			}
		}
		for range nseeds - len(r.outs) {
			line = append(line, "")
		}
		rate := "-"
		if !r.safe && r.expect.Skip == "" {
			rate = fmt.Sprintf("%d/%d", detected, len(r.outs))
		}
		status := "yes"
		if r.expect.Skip != "" {
			status = "skipped: " + r.expect.Skip
		}
		if ok < len(r.outs) {
			status = fmt.Sprintf("NO (%d/%d)", ok, len(r.outs))
		}
		body = append(body, append(line, rate, status))
	}
	return header, body
}

// WriteTable writes the matrix for a terminal (markdown false) or as a
// GitHub Markdown table.
func WriteTable(w io.Writer, outs []Outcome, markdown bool) error {
	header, body := tableRows(outs)
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header)
	for _, l := range body {
		if err := t.Append(l); err != nil {
			return err
		}
	}
	return t.Render()
}

// WriteMarkdown writes matrix.md: the table, then every unexpected cell with
// its reason and run directory.
func WriteMarkdown(w io.Writer, title string, outs []Outcome) error {
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintln(w, "Cells: `<seed>: <verdict> (<checkers that said invalid>; <class>)`; `!` marks a verdict that is not the expected one.")
	fmt.Fprintln(w, "Checkers: lin = linearizable, mutex = mutual exclusion on the protected register, fence = fencing tokens, fair = FIFO, live = liveness, timing = TryLock within its wait.")
	fmt.Fprintln(w, "Classes: safety = two holders or a lost update; refusal = refused while free (a contract or progress problem); contract = a call overstayed its wait; fairness; liveness.")
	fmt.Fprintln(w)
	if err := WriteTable(w, outs, true); err != nil {
		return err
	}
	var bad []Outcome
	for _, o := range outs {
		if !o.OK {
			bad = append(bad, o)
		}
	}
	if len(bad) > 0 {
		fmt.Fprintf(w, "\n## Not as expected\n\n")
		for _, o := range bad {
			fmt.Fprintf(w, "- %s / %s / seed %d: %s (%s)\n", o.Scenario.Name, o.Subject.Name, o.Seed, o.Why, o.Dir)
		}
	}
	fmt.Fprintf(w, "\n## Scenarios\n\n")
	seen := map[string]bool{}
	for _, o := range outs {
		if seen[o.Scenario.Name] {
			continue
		}
		seen[o.Scenario.Name] = true
		kind := "unsafe"
		if o.Scenario.Safe {
			kind = "safe"
		}
		fmt.Fprintf(w, "- **%s** (%s): %s\n", o.Scenario.Name, kind, o.Scenario.Doc)
	}
	return nil
}
