package results

import (
	"encoding/json"
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

// LoadScoreboard merges the matrix.json files at paths (scoreboard runs,
// parts or shards of one; a cell run again in a later part replaces the
// older one) into the page to be written into dir: the scoreboard of the
// cells and their report, run directories relative to dir. name names each
// path in the page's prose (nil: the path relative to dir). A holds* cell
// whose record predates the fault-allowance checker's allowances gets them
// from read (nil: shown as recorded), and a cell whose record predates
// signatures gets those its run's report recorded.
func LoadScoreboard(dir string, paths []string, name func(path string) string, now time.Time, read RunAllowances) (ScoreboardPage, error) {
	rep, replaced, err := MergeLatest(paths, dir, now, name)
	if err != nil {
		return ScoreboardPage{}, err
	}
	if err := readAllowances(dir, &rep, read); err != nil {
		return ScoreboardPage{}, err
	}
	if err := readSignatures(dir, &rep); err != nil {
		return ScoreboardPage{}, err
	}
	subjects, meta, err := scoreboardMeta(paths, name)
	if err != nil {
		return ScoreboardPage{}, err
	}
	if len(rep.Scenarios) == 0 { // matrices written before they recorded them
		rep.Scenarios = scenariosOfCells(rep)
	}
	meta.Replaced = replaced
	return ScoreboardPage{Scoreboard: Pivot(rep, subjects, KnownFindings), Report: rep, Meta: meta, Dir: filepath.ToSlash(filepath.Clean(dir))}, nil
}

// WriteScoreboardPage writes p into dir (created): the scoreboard
// (README.md, scoreboard.html, scoreboard.json, table.md) and the report
// of the same cells; the HTML and JSON files gzipped (Gz: a page covers
// thousands of cells, and Markdown is what it is read in). Its links are
// p's run directories as they are. It returns the paths written.
func WriteScoreboardPage(dir string, p ScoreboardPage) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	files, err := writeFiles(dir, p, []namedWriter[ScoreboardPage]{
		{ScoreboardMarkdown, writeScoreboardMarkdown, false}, {ScoreboardHTML, writeScoreboardHTML, true}, {ScoreboardJSON, writeScoreboardJSON, true},
		{ScoreboardTable, writeScoreboardTable, false}})
	if err != nil {
		return files, err
	}
	more, err := writeFiles(dir, p.Report, reportFiles(true))
	return append(files, more...), err
}

// ScoreboardPage is what a scoreboard page shows: LoadScoreboard makes
// it, WriteScoreboardPage renders it.
type ScoreboardPage struct {
	Scoreboard
	Report Report
	Meta   RunMeta
	// Dir is the page's directory as given (results/scoreboard).
	Dir string
}

// RunMeta is what the merged matrices say about how they ran.
type RunMeta struct {
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
func scoreboardMeta(paths []string, name func(string) string) ([]SubjectInfo, RunMeta, error) {
	var subjects []SubjectInfo
	var meta RunMeta
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
			meta.InProgress = append(meta.InProgress, nameOr(name, p))
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

func writeScoreboardJSON(w io.Writer, p ScoreboardPage) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p.Scoreboard)
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
