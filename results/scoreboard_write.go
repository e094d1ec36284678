package results

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Scoreboard page files, written by WriteScoreboard into the page's
// directory beside report.{json,md,html} of the same cells.
const (
	ScoreboardMarkdown = "README.md"
	ScoreboardHTML     = "scoreboard.html"
	ScoreboardJSON     = "scoreboard.json"
	// ScoreboardTable is the table by property alone, linked for the
	// repository's README.md.
	ScoreboardTable = "table.md"
	// ScoreboardRuns is the folder of the kept histories of findings.
	ScoreboardRuns = "runs"
)

// WriteScoreboard merges the matrix.json files at paths (scoreboard runs,
// parts or shards of one; a cell run again in a later part replaces the
// older one), copies the run directories of every finding under
// dir/runs, and writes the scoreboard (README.md, scoreboard.html,
// scoreboard.json) and the report of the same cells into dir. It returns
// the paths written.
func WriteScoreboard(dir string, paths []string, now time.Time) ([]string, error) {
	rep, replaced, err := MergeLatest(paths, dir, now)
	if err != nil {
		return nil, err
	}
	subjects, meta, err := scoreboardMeta(paths)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if len(rep.Scenarios) == 0 { // matrices written before they recorded them
		rep.Scenarios = scenariosOfCells(rep)
	}
	sb := Pivot(rep, subjects, KnownFindings)
	if err := keepFindings(dir, &sb); err != nil {
		return nil, err
	}
	meta.Replaced = replaced
	page := scoreboardPage{Scoreboard: sb, Report: rep, Meta: meta, Dir: filepath.ToSlash(filepath.Clean(dir))}
	files, err := writeFiles(dir, page, []namedWriter[scoreboardPage]{
		{ScoreboardMarkdown, writeScoreboardMarkdown}, {ScoreboardHTML, writeScoreboardHTML}, {ScoreboardJSON, writeScoreboardJSON},
		{ScoreboardTable, writeScoreboardTable}})
	if err != nil {
		return files, err
	}
	more, err := WriteReport(dir, rep)
	return append(files, more...), err
}

// scoreboardPage is what the page templates render.
type scoreboardPage struct {
	Scoreboard
	Report Report
	Meta   runMeta
	// Dir is the page's directory as given (results/scoreboard).
	Dir string
}

// runMeta is what the merged matrices say about how they ran.
type runMeta struct {
	SeedBases    []int64
	Duration     time.Duration
	CheckTimeout time.Duration
	Servers      []string // the servers the matrices ran on (MatrixFile.Server)
	InProgress   []string // sources still being written
	Replaced     []string // cells a later part ran again
}

// scoreboardMeta collects the subjects (first description of each name
// wins, a known version over an unknown one) and run settings of the
// matrices at paths.
func scoreboardMeta(paths []string) ([]SubjectInfo, runMeta, error) {
	var subjects []SubjectInfo
	var meta runMeta
	idx := map[string]int{}
	for _, p := range paths {
		m, err := LoadMatrix(p)
		if err != nil {
			return nil, meta, err
		}
		if !slices.Contains(meta.SeedBases, m.SeedBase) {
			meta.SeedBases = append(meta.SeedBases, m.SeedBase)
		}
		meta.Duration, meta.CheckTimeout = max(meta.Duration, m.Duration), max(meta.CheckTimeout, m.CheckTimeout)
		if m.InProgress {
			meta.InProgress = append(meta.InProgress, keyPath(p))
		}
		if m.Server != "" && !slices.Contains(meta.Servers, m.Server) {
			meta.Servers = append(meta.Servers, m.Server)
		}
		for _, s := range m.Subjects {
			i, ok := idx[s.Name]
			switch {
			case !ok:
				idx[s.Name] = len(subjects)
				subjects = append(subjects, s)
			case subjects[i].Version == "" && s.Version != "":
				subjects[i] = s
			}
		}
	}
	return subjects, meta, nil
}

func writeScoreboardJSON(w io.Writer, p scoreboardPage) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p.Scoreboard)
}

// keepFindings copies the run directory of every run of a finding (and its
// reruns) to dir/runs/<scenario>/<name>, and points the finding there. A
// directory that is not found (a shard run on another machine) keeps its
// original path.
func keepFindings(dir string, sb *Scoreboard) error {
	for i := range sb.Findings {
		f := &sb.Findings[i]
		for j := range f.Runs {
			r := &f.Runs[j]
			var err error
			if r.Dir, err = keepRun(dir, f.Scenario, r.Dir); err != nil {
				return err
			}
			for k := range r.Reruns {
				if r.Reruns[k], err = keepRun(dir, f.Scenario, r.Reruns[k]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// keptFiles are the files of a run directory a scoreboard keeps: enough
// to re-check it (lockcheck check DIR redraws the timeline and plots).
var keptFiles = []string{ConfigFile, HistoryFile, ResultFile, SummaryFile}

// keepRun copies the run directory rel (relative to dir) into
// dir/runs/<scenario>/ and returns the copy's path relative to dir.
func keepRun(dir, scenario, rel string) (string, error) {
	if rel == "" {
		return "", nil
	}
	src := rel
	if !filepath.IsAbs(src) {
		src = filepath.Join(dir, rel)
	}
	dstRel := filepath.ToSlash(filepath.Join(ScoreboardRuns, scenario, filepath.Base(src)))
	dst := filepath.Join(dir, dstRel)
	if filepath.Clean(src) == filepath.Clean(dst) {
		return dstRel, nil
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return rel, nil // not here: keep the link as it was
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return rel, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !slices.Contains(keptFiles, e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return rel, err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return rel, fmt.Errorf("keep %s: %w", src, err)
		}
	}
	return dstRel, nil
}

// scenariosOfCells describes the scenarios from the report's cells (no
// description), in row order.
func scenariosOfCells(rep Report) []ScenarioInfo {
	var out []ScenarioInfo
	for _, row := range rep.Rows {
		if len(row.Cells) == 0 || slices.ContainsFunc(out, func(x ScenarioInfo) bool { return x.Name == row.Scenario }) {
			continue
		}
		out = append(out, ScenarioInfo{Name: row.Scenario, Safe: row.Safe, FaultClass: row.Cells[0].FaultClass})
	}
	return out
}
