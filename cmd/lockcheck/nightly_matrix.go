package main

import (
	"fmt"
	"io"
	"path/filepath"
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

// nightlyMatrix is what one nightly run (or shard) writes into base:
// matrix.md for people and matrix.json for `lockcheck report`.
type nightlyMatrix struct {
	base        string
	shard       scenario.Shard
	start       time.Time
	outs        []scenario.Outcome
	walls       *cellWalls
	interrupted bool
}

// write writes matrix.md and matrix.json into m.base.
func (m nightlyMatrix) write() error {
	wall := time.Since(m.start)
	title := fmt.Sprintf("lockcheck nightly %s (%s)", m.start.UTC().Format(time.RFC3339), wall.Round(time.Second))
	if m.shard.N > 0 {
		title += ", shard " + m.shard.String()
	}
	if err := results.WriteFileWith(filepath.Join(m.base, "matrix.md"), func(w io.Writer) error {
		return scenario.WriteMarkdown(w, title, m.outs)
	}); err != nil {
		return err
	}
	mf := results.MatrixFile{Title: title, Shard: m.shard.String(), Started: m.start.UTC(), Wall: wall, Interrupted: m.interrupted}
	for _, o := range m.outs {
		mf.Cells = append(mf.Cells, m.cell(o))
	}
	return results.WriteFileWith(filepath.Join(m.base, results.MatrixFileName), func(w io.Writer) error {
		return results.WriteMatrixJSON(w, mf)
	})
}

// cell converts one outcome, its run directory made relative to m.base.
func (m nightlyMatrix) cell(o scenario.Outcome) results.MatrixCell {
	c := results.MatrixCell{
		Scenario: o.Scenario.Name, Subject: o.Subject.Name, Seed: o.Seed, Safe: o.Scenario.Safe,
		Expected: o.Expect.Label, Informational: o.Expect.Informational(), Skip: o.Expect.Skip, OK: o.OK, Why: o.Why, Wall: m.walls.get(o.Cell),
	}
	if o.Err != nil {
		c.Error = o.Err.Error()
	} else if o.Expect.Skip == "" {
		c.Verdict = o.Report.Verdict
		for _, r := range o.Report.Results {
			if r.Verdict == model.Invalid {
				c.Invalid = append(c.Invalid, r.Checker)
			}
		}
		c.Class = o.Report.Class()
		c.FirstDetection, _ = results.FirstViolation(o.Report)
	}
	if o.Dir != "" {
		if rel, err := filepath.Rel(m.base, o.Dir); err == nil {
			c.Dir = filepath.ToSlash(rel)
		} else {
			c.Dir = o.Dir
		}
	}
	return c
}
