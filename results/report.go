package results

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Report file names, written by WriteReport into the report's directory.
const (
	ReportJSON     = "report.json"
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
)

// Report is one matrix merged from any number of nightly runs or shards of
// one. Every cell appears once; its Dir is relative to the report's
// directory.
type Report struct {
	Version   int       `json:"version"`
	Generated time.Time `json:"generated"`
	// Commit is lockcheck's commit that merged the report (BuildCommit;
	// "" when the binary records none).
	Commit string `json:"commit,omitempty"`
	// Title heads the Markdown ("": "lockcheck nightly report").
	Title   string   `json:"title,omitempty"`
	Sources []Source `json:"sources"`
	// Scenarios describes the scenarios of the rows (those the sources
	// recorded), in the order first met.
	Scenarios []ScenarioInfo `json:"scenarios,omitempty"`
	// MissingShards lists the shards ("I/N") of a sharded run that no
	// source holds: their cells were not run, or their output is lost.
	MissingShards []string `json:"missing_shards,omitempty"`
	// Wall is the longest source's wall time: the elapsed time when the
	// shards ran side by side. CellTime is the sum over all cells.
	Wall     time.Duration `json:"wall_ns"`
	CellTime time.Duration `json:"cell_time_ns"`
	Rows     []ReportRow   `json:"rows"`
	// Baseline is the directory compared with ("" when none); Dropped
	// lists its rows ("scenario/subject") that this report lacks.
	Baseline string   `json:"baseline,omitempty"`
	Dropped  []string `json:"dropped,omitempty"`
}

// Source is one merged matrix.json.
type Source struct {
	Path        string        `json:"path"`
	Shard       string        `json:"shard,omitempty"`
	Started     time.Time     `json:"started"`
	Wall        time.Duration `json:"wall_ns"`
	Cells       int           `json:"cells"`
	Interrupted bool          `json:"interrupted,omitempty"`
}

// ReportRow is one scenario × subject over its seeds.
type ReportRow struct {
	Scenario string `json:"scenario"`
	Subject  string `json:"subject"`
	// Server is the server the row's cells ran on (MatrixCell.Server).
	Server   string `json:"server,omitempty"`
	Safe     bool   `json:"safe"`
	Expected string `json:"expected"`
	// Informational: the expectation requires nothing (see MatrixCell).
	Informational bool         `json:"informational,omitempty"`
	Skip          string       `json:"skip,omitempty"`
	Cells         []MatrixCell `json:"cells"`
	// Runs counts cells that ran and gave a verdict (no error, not skipped).
	Runs int `json:"runs"`
	// Detected counts runs whose verdict is invalid: for an unsafe
	// scenario the detections, for a safe one the false positives.
	Detected   int `json:"detected"`
	Unexpected int `json:"unexpected"`
	Errors     int `json:"errors"`
	// FirstDetection is the least FirstDetection over the seeds (0: none).
	FirstDetection time.Duration `json:"first_detection_ns,omitempty"`
	Wall           time.Duration `json:"wall_ns"`
	// Regression says how the row got worse than in the baseline.
	Regression string `json:"regression,omitempty"`
}

// OK reports whether every cell of the row met its expectation.
func (r ReportRow) OK() bool { return r.Unexpected == 0 && r.Errors == 0 }

// Key is "scenario/subject" ("scenario/subject on server" in a report of
// several servers): rows compared with a baseline are matched by it.
func (r ReportRow) Key() string {
	if r.Server != "" { // a report of several servers (see oneServerRows)
		return r.Scenario + "/" + r.Subject + " on " + ServerLabel(r.Server)
	}
	return r.Scenario + "/" + r.Subject
}

// FalsePositives is Detected on a safe scenario whose expectation requires
// a valid verdict, else 0.
func (r ReportRow) FalsePositives() int {
	if r.Safe && !r.Informational {
		return r.Detected
	}
	return 0
}

// Unexpected counts the cells, over all rows, that did not meet their
// expectation or could not run.
func (r Report) Unexpected() int {
	n := 0
	for _, row := range r.Rows {
		n += row.Unexpected + row.Errors
	}
	return n
}

// Regressions counts the rows marked against the baseline.
func (r Report) Regressions() int {
	n := 0
	for _, row := range r.Rows {
		if row.Regression != "" {
			n++
		}
	}
	return n
}

// FindMatrices returns the matrix.json files named by args: a file itself,
// or every matrix.json under a directory. An argument that names none is an
// error; a file reached twice is listed once.
func FindMatrices(args []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, a := range args {
		var found []string
		err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && d.Name() == MatrixFileName {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", a, err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no %s (not the output of lockcheck nightly)", a, MatrixFileName)
		}
		for _, p := range found {
			abs, err := filepath.Abs(p)
			if err != nil {
				return nil, err
			}
			if !seen[abs] {
				seen[abs] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// LoadReport reads a report.json written by WriteReport (or the
// report.json.gz of a scoreboard page).
func LoadReport(path string) (Report, error) {
	var r Report
	b, err := readRunFile(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: not a lockcheck report: %v", path, err)
	}
	if r.Version != matrixVersion {
		return r, fmt.Errorf("%s: report version %d, this lockcheck reads version %d", path, r.Version, matrixVersion)
	}
	return r, nil
}

// WriteReportJSON writes r as indented JSON, with its version set.
func WriteReportJSON(w io.Writer, r Report) error {
	r.Version = matrixVersion
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// sortRows orders rows by scenario, then subject, and each row's cells by
// seed, so that a matrix merged from shards in any order reads the same.
func sortRows(rows []ReportRow) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Scenario != rows[j].Scenario {
			return rows[i].Scenario < rows[j].Scenario
		}
		if rows[i].Subject != rows[j].Subject {
			return rows[i].Subject < rows[j].Subject
		}
		return rows[i].Server < rows[j].Server
	})
	sortCells(rows)
}

// sortCells orders each row's cells by seed.
func sortCells(rows []ReportRow) {
	for _, r := range rows {
		sort.Slice(r.Cells, func(i, j int) bool { return r.Cells[i].Seed < r.Cells[j].Seed })
	}
}

// relDir rewrites a cell's run directory, relative to the matrix file at
// src, to be relative to the report directory out (absolute if it cannot).
func relDir(src, dir, out string) string {
	if dir == "" {
		return ""
	}
	p := dir
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(src), dir)
	}
	absP, err1 := filepath.Abs(p)
	absOut, err2 := filepath.Abs(out)
	if err1 != nil || err2 != nil {
		return p
	}
	if rel, err := filepath.Rel(absOut, absP); err == nil {
		return filepath.ToSlash(rel)
	}
	return absP
}

// missingShards lists the shards I/N absent from the given ones, per N.
func missingShards(shards []string) []string {
	have := map[string]bool{}
	ns := map[int]bool{}
	for _, s := range shards {
		var i, n int
		if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err == nil && n > 0 {
			have[s] = true
			ns[n] = true
		}
	}
	var out []string
	for n := range ns {
		for i := 1; i <= n; i++ {
			if s := fmt.Sprintf("%d/%d", i, n); !have[s] {
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// keyPath is a display form of a path: slashes, no leading "./".
func keyPath(p string) string { return strings.TrimPrefix(filepath.ToSlash(p), "./") }

// WriteReport writes report.json, report.md and report.html into dir
// (created if needed) and returns their paths.
func WriteReport(dir string, r Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return writeFiles(dir, r, reportFiles(false))
}

// reportFiles are the files of a report: report.json, report.md and
// report.html, the first and last gzipped (results.Gz) when gz says so.
func reportFiles(gz bool) []namedWriter[Report] {
	return []namedWriter[Report]{{ReportJSON, WriteReportJSON, gz}, {ReportMarkdown, WriteReportMarkdown, false}, {ReportHTML, WriteReportHTML, gz}}
}

// namedWriter writes one file of a set from a value of type T, gzipped as
// name.gz when gz is set.
type namedWriter[T any] struct {
	name  string
	write func(io.Writer, T) error
	gz    bool
}

// writeFiles writes each file of fs into dir from v and returns the paths
// written, stopping at the first error.
func writeFiles[T any](dir string, v T, fs []namedWriter[T]) ([]string, error) {
	var paths []string
	for _, f := range fs {
		p, write := filepath.Join(dir, f.name), func(w io.Writer) error { return f.write(w, v) }
		if f.gz {
			p, write = p+Gz, gzipped(write)
		}
		if err := WriteFileWith(p, write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteFileAtomic is WriteFileWith through a temporary file renamed over
// path: a reader (or a crash) never sees a half-written file.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp := path + ".tmp"
	if err := WriteFileWith(tmp, write); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

// WriteFileWith creates path and writes it with write, reporting the first
// error of writing or closing.
func WriteFileWith(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	werr := write(f)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}
