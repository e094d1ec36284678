package results

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"
)

// MergeMatrices merges the matrix.json files at paths into one Report whose
// run directories are relative to out (where the report will be written).
// A cell that two files both hold is an error naming both: shards of one
// run never overlap, so it means two runs were mixed.
func MergeMatrices(paths []string, out string, now time.Time) (Report, error) {
	mg := newMerger(out, now)
	for _, p := range paths {
		m, err := LoadMatrix(p)
		if err != nil {
			return Report{}, err
		}
		if err := mg.add(m, p); err != nil {
			return Report{}, err
		}
	}
	return mg.report(true), nil
}

// MergeLatest is MergeMatrices for parts that may overlap (a part run
// again after an interrupted one): the matrices are taken oldest first (by
// Started) and a cell met again replaces the older one. It also returns
// what was replaced. name names each path in the report's sources and in
// what was replaced (nil: the path relative to out).
func MergeLatest(paths []string, out string, now time.Time, name func(path string) string) (Report, []string, error) {
	type loaded struct {
		m MatrixFile
		p string
	}
	var ms []loaded
	for _, p := range paths {
		m, err := LoadMatrix(p)
		if err != nil {
			return Report{}, nil, err
		}
		ms = append(ms, loaded{m, p})
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].m.Started.Before(ms[j].m.Started) })
	mg := newMerger(out, now)
	mg.replace, mg.name = true, name
	for _, l := range ms {
		_ = mg.add(l.m, l.p) // replace: never a duplicate error
	}
	return mg.report(true), mg.Replaced, nil
}

// MatrixReport is the report of one matrix whose file is (or will be) at
// path, its run directories relative to path's directory: the matrix.md a
// nightly run writes beside matrix.json.
func MatrixReport(m MatrixFile, path string, now time.Time) Report {
	mg := newMerger(filepath.Dir(path), now)
	_ = mg.add(m, path) // one matrix: no cell twice
	rep := mg.report(false)
	rep.Title = m.Title
	return rep
}

// merger folds matrices into a report.
type merger struct {
	rep    Report
	out    string
	owner  map[string]string // cell key -> the file it came from
	idx    map[string]int    // scenario\x00subject -> row
	shards []string
	// replace lets a cell met again replace the one met before (a part
	// run again); otherwise it is an error.
	replace  bool
	Replaced []string
	// name names a matrix's path in Sources and Replaced (nil: relative
	// to out).
	name func(string) string
}

func newMerger(out string, now time.Time) *merger {
	return &merger{rep: Report{Generated: now.UTC(), Commit: BuildCommit()}, out: out, owner: map[string]string{}, idx: map[string]int{}}
}

// add folds the matrix m, read from the file p, into the report.
func (mg *merger) add(m MatrixFile, p string) error {
	rep := &mg.rep
	rep.Sources = append(rep.Sources, Source{Path: mg.sourceName(p), Shard: m.Shard, Started: m.Started, Wall: m.Wall, Cells: len(m.Cells), Interrupted: m.Interrupted})
	rep.Wall = max(rep.Wall, m.Wall)
	if m.Shard != "" {
		mg.shards = append(mg.shards, m.Shard)
	}
	for _, sc := range m.Scenarios {
		if !slices.ContainsFunc(rep.Scenarios, func(x ScenarioInfo) bool { return x.Name == sc.Name }) {
			rep.Scenarios = append(rep.Scenarios, sc)
		}
	}
	for _, c := range m.Cells {
		c.Server = orStr(c.Server, m.Server)
		if prev, dup := mg.owner[cellID(c)]; dup {
			if !mg.replace {
				return fmt.Errorf("cell %s is in both %s and %s: they are not shards of one run", c.Key(), prev, p)
			}
			mg.drop(c)
			mg.Replaced = append(mg.Replaced, fmt.Sprintf("%s: %s replaces %s", c.Key(), mg.sourceName(p), mg.sourceName(prev)))
		}
		mg.owner[cellID(c)] = p
		c.Dir = relDir(p, c.Dir, mg.out)
		c.Reruns = slices.Clone(c.Reruns)
		for k := range c.Reruns {
			c.Reruns[k].Dir = relDir(p, c.Reruns[k].Dir, mg.out)
		}
		rk := rowID(c)
		i, ok := mg.idx[rk]
		if !ok {
			i = len(rep.Rows)
			mg.idx[rk] = i
			rep.Rows = append(rep.Rows, ReportRow{Scenario: c.Scenario, Subject: c.Subject, Server: c.Server, Safe: c.Safe, Expected: c.Expected, Informational: c.Informational, Skip: c.Skip})
		}
		rep.Rows[i].add(c)
		rep.CellTime += c.Wall
	}
	return nil
}

// sourceName names the matrix at p in the report.
func (mg *merger) sourceName(p string) string {
	if mg.name != nil {
		return mg.name(p)
	}
	return keyPath(relDir("", p, mg.out))
}

// nameOr is name(p), or p as a key path when name is nil.
func nameOr(name func(string) string, p string) string {
	if name != nil {
		return name(p)
	}
	return keyPath(p)
}

// drop removes the cell of c's key from its row.
func (mg *merger) drop(c MatrixCell) {
	row := &mg.rep.Rows[mg.idx[rowID(c)]]
	kept := row.Cells[:0]
	for _, old := range row.Cells {
		if cellID(old) != cellID(c) {
			kept = append(kept, old)
		}
	}
	cells := kept
	*row = ReportRow{Scenario: row.Scenario, Subject: row.Subject, Server: row.Server, Safe: row.Safe, Expected: row.Expected, Informational: row.Informational, Skip: row.Skip}
	for _, old := range cells {
		row.add(old)
	}
}

// report returns the merged report, its rows sorted by scenario and
// subject when sorted is set (shards merged in any order read the same),
// else in the order first met; each row's cells by seed.
func (mg *merger) report(sorted bool) Report {
	mg.rep.MissingShards = missingShards(mg.shards)
	oneServerRows(&mg.rep)
	if sorted {
		sortRows(mg.rep.Rows)
	} else {
		sortCells(mg.rep.Rows)
	}
	return mg.rep
}

// add counts one cell into the row.
func (r *ReportRow) add(c MatrixCell) {
	r.Cells = append(r.Cells, c)
	r.Wall += c.Wall
	switch {
	case c.Skip != "":
		return
	case c.Error != "":
		r.Errors++
		return
	}
	r.Runs++
	if !c.OK {
		r.Unexpected++
	}
	if c.Detected() {
		r.Detected++
		if c.FirstDetection > 0 && (r.FirstDetection == 0 || c.FirstDetection < r.FirstDetection) {
			r.FirstDetection = c.FirstDetection
		}
	}
}
