package results

import (
	"fmt"
	"slices"
	"time"
)

// MergeMatrices merges the matrix.json files at paths into one Report whose
// run directories are relative to out (where the report will be written).
// A cell that two files both hold is an error naming both: shards of one
// run never overlap, so it means two runs were mixed.
func MergeMatrices(paths []string, out string, now time.Time) (Report, error) {
	rep := Report{Generated: now.UTC()}
	owner := map[string]string{}
	idx := map[string]int{}
	var shards []string
	for _, p := range paths {
		m, err := LoadMatrix(p)
		if err != nil {
			return Report{}, err
		}
		rep.Sources = append(rep.Sources, Source{Path: keyPath(relDir("", p, out)), Shard: m.Shard, Started: m.Started, Wall: m.Wall, Cells: len(m.Cells), Interrupted: m.Interrupted})
		rep.Wall = max(rep.Wall, m.Wall)
		if m.Shard != "" {
			shards = append(shards, m.Shard)
		}
		for _, c := range m.Cells {
			if prev, dup := owner[c.Key()]; dup {
				return Report{}, fmt.Errorf("cell %s is in both %s and %s: they are not shards of one run", c.Key(), prev, p)
			}
			owner[c.Key()] = p
			c.Dir = relDir(p, c.Dir, out)
			c.Reruns = slices.Clone(c.Reruns)
			for k := range c.Reruns {
				c.Reruns[k].Dir = relDir(p, c.Reruns[k].Dir, out)
			}
			rk := c.Scenario + "\x00" + c.Subject
			i, ok := idx[rk]
			if !ok {
				i = len(rep.Rows)
				idx[rk] = i
				rep.Rows = append(rep.Rows, ReportRow{Scenario: c.Scenario, Subject: c.Subject, Safe: c.Safe, Expected: c.Expected, Informational: c.Informational, Skip: c.Skip})
			}
			rep.Rows[i].add(c)
			rep.CellTime += c.Wall
		}
	}
	rep.MissingShards = missingShards(shards)
	sortRows(rep.Rows)
	return rep, nil
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
