package results

import (
	"fmt"
	"path/filepath"
	"time"
)

// LoadBaseline reads the report a new one is compared with: dir's
// report.json (or report.json.gz) if it has one, else the matrix.json
// files under dir merged.
func LoadBaseline(dir string) (Report, error) {
	if keptName(dir, ReportJSON) != "" { // report.json, or a page's report.json.gz
		return LoadReport(filepath.Join(dir, ReportJSON))
	}
	paths, err := FindMatrices([]string{dir})
	if err != nil {
		return Report{}, fmt.Errorf("baseline %s: no %s and %v", dir, ReportJSON, err)
	}
	return MergeMatrices(paths, dir, time.Time{})
}

// CompareBaseline marks each row of r that got worse than the same
// scenario × subject in base: it met its expectations there and not now, it
// detects an unsafe scenario in a smaller share of its runs, or it reports
// more false positives per run on a safe one. Rows base has and r lacks are
// listed in r.Dropped. Rows new in r are not regressions.
func CompareBaseline(r *Report, base Report, baseDir string) {
	r.Baseline = keyPath(baseDir)
	old := map[string]ReportRow{}
	for _, row := range base.Rows {
		old[row.Key()] = row
	}
	seen := map[string]bool{}
	for i := range r.Rows {
		row := &r.Rows[i]
		seen[row.Key()] = true
		if b, ok := old[row.Key()]; ok {
			row.Regression = regression(*row, b)
		}
	}
	for _, b := range base.Rows {
		if !seen[b.Key()] {
			r.Dropped = append(r.Dropped, b.Key())
		}
	}
}

// regression says how now is worse than before ("" when it is not).
func regression(now, before ReportRow) string {
	rate := func(r ReportRow) float64 {
		if r.Runs == 0 {
			return 0
		}
		return float64(r.Detected) / float64(r.Runs)
	}
	switch {
	case before.OK() && !now.OK():
		return fmt.Sprintf("as expected in the baseline (%d/%d cells), now %d of %d not (%d could not run)", len(before.Cells), len(before.Cells), now.Unexpected+now.Errors, len(now.Cells), now.Errors)
	case !now.Safe && now.Skip == "" && before.Runs > 0 && now.Runs > 0 && rate(now) < rate(before):
		return fmt.Sprintf("detection rate fell from %d/%d to %d/%d", before.Detected, before.Runs, now.Detected, now.Runs)
	case now.Safe && !now.Informational && before.Runs > 0 && now.Runs > 0 && rate(now) > rate(before):
		return fmt.Sprintf("false positives rose from %d/%d to %d/%d", before.Detected, before.Runs, now.Detected, now.Runs)
	}
	return ""
}
