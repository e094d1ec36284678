package matrix

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// MarkdownFile is the matrix's table for people, written beside
// matrix.json at the end of a run.
const MarkdownFile = "matrix.md"

// write writes mf as matrix.json into the matrix's directory (atomically:
// a reader never sees half of it) and, unless it is an in-progress copy,
// matrix.md.
func (r *runner) write(mf results.MatrixFile) error {
	path := filepath.Join(r.cfg.Dir, results.MatrixFileName)
	if !mf.InProgress {
		if err := results.WriteFileWith(filepath.Join(r.cfg.Dir, MarkdownFile), func(w io.Writer) error {
			return results.WriteReportMarkdown(w, results.MatrixReport(mf, path, r.now()))
		}); err != nil {
			return err
		}
	}
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		return results.WriteMatrixJSON(w, mf)
	})
}

// file is the run's matrix.json as of now.
func (r *runner) file(inProgress, interrupted bool) results.MatrixFile {
	cfg := &r.cfg
	wall := r.now().Sub(r.start)
	title := fmt.Sprintf("lockcheck %s %s (%s)", cfg.Kind, r.start.UTC().Format(time.RFC3339), wall.Round(time.Second))
	if cfg.Shard.N > 0 {
		title += ", shard " + cfg.Shard.String()
	}
	if cfg.Server != "" {
		title += ", on " + cfg.Server
	}
	mf := results.MatrixFile{
		Title: title, Shard: cfg.Shard.String(), Started: r.start.UTC(), Wall: wall, Interrupted: interrupted, InProgress: inProgress,
		SeedBase: cfg.SeedBase, Duration: cfg.Duration, CheckTimeout: cfg.CheckTimeout, Subjects: r.subjects, Cells: slices.Clone(r.cells),
		Server: cfg.Server,
	}
	if cfg.Kind != Nightly {
		mf.Kind = cfg.Kind
	}
	for _, sc := range cfg.Scenarios {
		mf.Scenarios = append(mf.Scenarios, results.ScenarioInfo{Name: sc.Name, Safe: sc.Safe, Doc: sc.Doc, FaultClass: scenario.FaultClass(sc.Name)})
	}
	return mf
}

// interruptedWhy prefixes the reason of a cell that ctx cut short.
const interruptedWhy = "interrupted (the run or its check was stopped early; nothing was decided): "

// cell converts one outcome; its Dir is its run's key.
func (r *runner) cell(o scenario.Outcome) results.MatrixCell {
	key := CellKey(o.Cell, 0)
	c := results.MatrixCell{
		Scenario: o.Scenario.Name, Subject: o.Subject.Name, Seed: o.Seed, Safe: o.Scenario.Safe,
		Expected: o.Expect.Label, Informational: o.Expect.Informational(), Skip: o.Expect.Skip, OK: o.OK, Why: o.Why,
		Wall: r.walls[key], FaultClass: scenario.FaultClass(o.Scenario.Name), Command: r.command(o.Cell), Dir: o.Dir, Server: r.cfg.Server,
	}
	if r.stopped[key] && !o.OK && !strings.HasPrefix(c.Why, "interrupted") {
		c.Why = interruptedWhy + c.Why
	}
	if o.Err != nil {
		c.Error = o.Err.Error()
		return c
	}
	if o.Expect.Skip != "" {
		return c
	}
	c.Verdict, c.Invalid, c.Class, c.Beyond = o.Report.Verdict, o.Report.InvalidCheckers(), o.Report.Class(), o.Report.Beyond()
	c.FirstDetection, _ = results.FirstViolation(o.Report)
	c.Checkers, c.Signatures = results.CheckerVerdicts(o.Report), o.Report.Signatures()
	var ran []string
	for _, res := range o.Report.Results {
		ran = append(ran, res.Checker)
	}
	c.Tolerated = o.Expect.Tolerated(ran, o.Scenario.Safe)
	for name, v := range o.Expect.Checkers {
		if v == model.Invalid {
			c.Owners = append(c.Owners, name)
		}
	}
	slices.Sort(c.Owners)
	return c
}

// command is the `lockcheck run` line that reruns cell c as this run ran
// it.
func (r *runner) command(c scenario.Cell) string {
	s := fmt.Sprintf("lockcheck run --scenario %s --subject %s --seed %d", c.Scenario.Name, c.Subject.Name, c.Seed)
	if r.cfg.Duration > 0 {
		s += " --duration " + r.cfg.Duration.String()
	}
	if r.cfg.CheckTimeout > 0 {
		s += " --check-timeout " + r.cfg.CheckTimeout.String()
	}
	return s + r.cfg.Engine
}
