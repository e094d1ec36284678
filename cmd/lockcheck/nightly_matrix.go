package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// shardSuffix names a shard's run directory ("-shard-2-of-4"), so shards
// started in the same second on one machine never share one.
func shardSuffix(s scenario.Shard) string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf("-shard-%d-of-%d", s.I, s.N)
}

// shardNote is the start-up line's mention of the shard.
func shardNote(s scenario.Shard) string {
	if s.N == 0 {
		return ""
	}
	return fmt.Sprintf(", shard %s (the cells whose hash falls there)", s)
}

// cellWalls records how long each cell took, keyed by scenario/subject/seed.
type cellWalls struct {
	mu sync.Mutex
	m  map[string]time.Duration
}

func cellKey(c scenario.Cell) string {
	return fmt.Sprintf("%s/%s/%d", c.Scenario.Name, c.Subject.Name, c.Seed)
}

// time starts timing c; the returned func records the elapsed time.
func (w *cellWalls) time(c scenario.Cell) func() {
	start := time.Now()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.m == nil {
			w.m = map[string]time.Duration{}
		}
		w.m[cellKey(c)] = time.Since(start)
	}
}

func (w *cellWalls) get(c scenario.Cell) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.m[cellKey(c)]
}

// interruptedCells records the cells that SIGINT or SIGTERM cut short.
type interruptedCells struct {
	mu sync.Mutex
	m  map[string]bool
}

func (ic *interruptedCells) mark(c scenario.Cell) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	if ic.m == nil {
		ic.m = map[string]bool{}
	}
	ic.m[cellKey(c)] = true
}

// say makes an interrupted cell's reason say so first (matrix.md, the
// status line and matrix.json show it), once.
func (ic *interruptedCells) say(o *scenario.Outcome) {
	ic.mu.Lock()
	defer ic.mu.Unlock()
	const word = "interrupted"
	if ic.m[cellKey(o.Cell)] && !o.OK && !strings.HasPrefix(o.Why, word) {
		o.Why = word + " (the run or its check was stopped early; nothing was decided): " + o.Why
	}
}

// nightlyMatrix is what one nightly or scoreboard run (or shard) writes
// into its base: matrix.md for people and matrix.json for `lockcheck
// report` and `lockcheck scoreboard render`.
type nightlyMatrix struct {
	run         *matrixRun
	subjects    []results.SubjectInfo
	cells       []results.MatrixCell // as the cells end, reruns included
	walls       *cellWalls
	stopped     *interruptedCells
	interrupted bool
}

// add converts a finished cell, reruns it if it broke a property its lock
// claims (m.run.reruns times), and rewrites matrix.json, so that a run
// that dies leaves the cells it finished.
func (m *nightlyMatrix) add(ctx context.Context, e *env, o scenario.Outcome) {
	c := m.cell(o)
	if len(c.Findings()) > 0 && !interrupted(ctx) {
		for k := 1; k <= m.run.reruns && ctx.Err() == nil; k++ {
			fmt.Fprintf(e.stderr, "  rerun %d of %s: %s\n", k, c.Key(), c.Command)
			c.Reruns = append(c.Reruns, m.rerun(ctx, o, k))
		}
	}
	m.cells = append(m.cells, c)
	if err := m.write(true); err != nil {
		fmt.Fprintf(e.stderr, "lockcheck %s: %v\n", m.run.kind, err)
	}
}

// rerun runs o's cell again from the same seed into "<dir>-rerun-<k>".
func (m *nightlyMatrix) rerun(ctx context.Context, o scenario.Outcome, k int) results.Rerun {
	start := time.Now()
	dir := filepath.Join(m.run.base, o.Scenario.Name, fmt.Sprintf("%s-%d-rerun-%d", o.Subject.Name, o.Seed, k))
	rep, dir, err := m.run.runOne(ctx, o.Cell, dir)
	r := results.Rerun{Dir: m.rel(dir), Wall: time.Since(start)}
	switch {
	case interrupted(ctx):
		r.Error = "interrupted: the rerun was stopped early and decides nothing"
		return r
	case err != nil:
		r.Error = err.Error()
		return r
	}
	r.Verdict, r.Invalid, r.Checkers = rep.Verdict, rep.InvalidCheckers(), results.CheckerVerdicts(rep)
	return r
}

// write writes matrix.json into the run's base and, unless inProgress (a
// copy written while the run goes on), matrix.md.
func (m *nightlyMatrix) write(inProgress bool) error {
	mf := m.file(inProgress)
	path := filepath.Join(m.run.base, results.MatrixFileName)
	if !inProgress {
		if err := results.WriteFileWith(filepath.Join(m.run.base, "matrix.md"), func(w io.Writer) error {
			return results.WriteReportMarkdown(w, results.MatrixReport(mf, path, time.Now()))
		}); err != nil {
			return err
		}
	}
	return results.WriteFileAtomic(path, func(w io.Writer) error {
		return results.WriteMatrixJSON(w, mf)
	})
}

// file is the run's matrix.json.
func (m *nightlyMatrix) file(inProgress bool) results.MatrixFile {
	wall := time.Since(m.run.start)
	title := fmt.Sprintf("lockcheck %s %s (%s)", m.run.kind, m.run.start.UTC().Format(time.RFC3339), wall.Round(time.Second))
	if m.run.shard.N > 0 {
		title += ", shard " + m.run.shard.String()
	}
	if m.run.server != "" {
		title += ", on " + m.run.server
	}
	mf := results.MatrixFile{
		Title: title, Shard: m.run.shard.String(), Started: m.run.start.UTC(), Wall: wall, Interrupted: m.interrupted, InProgress: inProgress,
		SeedBase: m.run.seedBase, Duration: m.run.duration, CheckTimeout: m.run.checkTime, Subjects: m.subjects, Cells: m.cells,
		Server: m.run.server,
	}
	if m.run.kind != "nightly" {
		mf.Kind = m.run.kind
	}
	for _, sc := range m.run.scs {
		mf.Scenarios = append(mf.Scenarios, results.ScenarioInfo{Name: sc.Name, Safe: sc.Safe, Doc: sc.Doc, FaultClass: scenario.FaultClass(sc.Name)})
	}
	return mf
}

// rel is dir relative to the run's base (as matrix.json records it).
func (m *nightlyMatrix) rel(dir string) string {
	if dir == "" {
		return ""
	}
	if rel, err := filepath.Rel(m.run.base, dir); err == nil {
		return filepath.ToSlash(rel)
	}
	return dir
}

// cell converts one outcome, its run directory made relative to the base.
func (m *nightlyMatrix) cell(o scenario.Outcome) results.MatrixCell {
	c := results.MatrixCell{
		Scenario: o.Scenario.Name, Subject: o.Subject.Name, Seed: o.Seed, Safe: o.Scenario.Safe,
		Expected: o.Expect.Label, Informational: o.Expect.Informational(), Skip: o.Expect.Skip, OK: o.OK, Why: o.Why,
		Wall: m.walls.get(o.Cell), FaultClass: scenario.FaultClass(o.Scenario.Name), Command: m.run.command(o.Cell), Dir: m.rel(o.Dir),
	}
	if o.Err != nil {
		c.Error = o.Err.Error()
	} else if o.Expect.Skip == "" {
		c.Verdict = o.Report.Verdict
		c.Invalid = o.Report.InvalidCheckers()
		c.Class = o.Report.Class()
		c.Beyond = o.Report.Beyond()
		c.FirstDetection, _ = results.FirstViolation(o.Report)
		c.Checkers = results.CheckerVerdicts(o.Report)
		var ran []string
		for _, r := range o.Report.Results {
			ran = append(ran, r.Checker)
		}
		c.Tolerated = o.Expect.Tolerated(ran, o.Scenario.Safe)
		for name, v := range o.Expect.Checkers {
			if v == model.Invalid {
				c.Owners = append(c.Owners, name)
			}
		}
		slices.Sort(c.Owners)
	}
	return c
}

// command is the `lockcheck run` line that reruns cell c as this run ran it.
func (m *matrixRun) command(c scenario.Cell) string {
	s := fmt.Sprintf("lockcheck run --scenario %s --subject %s --seed %d", c.Scenario.Name, c.Subject.Name, c.Seed)
	if m.duration > 0 {
		s += " --duration " + m.duration.String()
	}
	if m.checkTime > 0 {
		s += " --check-timeout " + m.checkTime.String()
	}
	return s + m.engine
}
