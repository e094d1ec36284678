package results

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// File names inside a run directory.
const (
	ConfigFile     = "config.json"
	HistoryFile    = "history.jsonl"
	ResultFile     = "result.json"
	SummaryFile    = "summary.md"
	HTMLFile       = "history.html"
	LatencyPlot    = "latency.png"
	ThroughputPlot = "throughput.png"
)

// TimestampLayout is the layout of the timestamp in a run directory's name
// (UTC).
const TimestampLayout = "20060102T150405"

// RunDir returns the directory of one run:
// base/runs/<scenario>/<YYYYMMDDTHHMMSS>-<seed>, the timestamp being start in
// UTC. Characters of scenario that are unsafe in a file name (path
// separators, spaces, ...) become '-'; an empty scenario is "run". RunDir
// creates nothing.
func RunDir(base, scenario string, start time.Time, seed int64) string {
	return filepath.Join(base, "runs", safeName(scenario), fmt.Sprintf("%s-%d", start.UTC().Format(TimestampLayout), seed))
}

// RunDirLayout is the layout of the start time in the name of a directory
// NewRunDir creates (UTC, to the millisecond).
const RunDirLayout = "20060102T150405.000"

// maxRunDirSeq bounds the sequence numbers NewRunDir tries in one
// millisecond.
const maxRunDirSeq = 10000

// ErrRunDirTaken: NewRunDir found every name of its millisecond taken.
var ErrRunDirTaken = errors.New("results: no free run directory name")

// NewRunDir creates the directory of one run and returns its path:
// base/runs/<scenario>/<YYYYMMDDTHHMMSS.mmm>-<n>-<seed>[-<tag>], the time
// being start in UTC to the millisecond and n a sequence number from 1
// (scenario is made safe as RunDir does; tag too, "" for none). The
// directory is created with os.Mkdir, so it belongs to its caller alone:
// a name another run holds already (one that started in the same
// millisecond) is never reused, the next n is tried instead. Safe for
// concurrent use, by goroutines and by processes.
func NewRunDir(base, scenario string, start time.Time, seed int64, tag string) (string, error) {
	parent := filepath.Join(base, "runs", safeName(scenario))
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	suffix := ""
	if tag != "" {
		suffix = "-" + safeName(tag)
	}
	stamp := start.UTC().Format(RunDirLayout)
	for n := 1; n <= maxRunDirSeq; n++ {
		dir := filepath.Join(parent, fmt.Sprintf("%s-%d-%d%s", stamp, n, seed, suffix))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%w: %s-*-%d%s under %s", ErrRunDirTaken, stamp, seed, suffix, parent)
}

// safeName keeps letters, digits, '.', '_' and '-', and turns anything else
// into '-'.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '-'
	}, s)
	s = strings.Trim(s, ".-")
	if s == "" {
		return "run"
	}
	return s
}

// RunArtifacts is what WriteRun needs to know about one subject's run.
type RunArtifacts struct {
	// Subject and Workload name the run in the summary.
	Subject, Workload string
	// Release is the release of its library the subject ran ("": not known).
	Release string
	// Seed is the run's seed.
	Seed int64
	// Config is the run's configuration, written as config.json (indented
	// JSON). nil leaves an existing config.json alone (see WriteConfig).
	Config any
	// History is the run's history (required).
	History *model.History
	// Report is the checkers' verdict on History.
	Report model.Report
	// Options are the checker options the report was made with; porcupine's
	// view of the segments that are not linearizable (LinearizabilityFile)
	// uses them (Timeout 0: 30 s for the drawing).
	Options model.Options
	// HTML narrows porcupine's view (zero: all locks, at most 5000 ops);
	// it only ever holds segments that are not linearizable. The timeline
	// (HTMLFile) draws every op whatever HTML says.
	HTML model.HTMLOptions
	// Commit is the lockcheck commit that made the run (BuildCommit, as the
	// run recorded it; "": unknown), named in the timeline's header.
	Commit string
	// HistoryPath is where the runner appended the history while the run
	// went. "" or dir/history.jsonl: that file is left as it is. Another
	// path: it is copied to dir/history.jsonl unless that file exists. When
	// neither file exists, History is written to dir/history.jsonl.
	HistoryPath string
	// Plot tunes the plots; an empty Title becomes "subject / workload".
	Plot PlotOptions
	// Expect is the run's expectation (a scenario run's): written as
	// expect.json, judged in result.json ("expected") and in summary.md's
	// headline. nil: the expectation dir records already
	// (WriteExpectation), if any.
	Expect *Expectation
	// NoPlots leaves latency.png and throughput.png out (they take the
	// longest to draw), for a run directory wanted fast; so does a process
	// that registered no plots (RegisterPlots). summary.md then links
	// none.
	NoPlots bool
}

// WriteConfig writes cfg as dir/config.json (indented JSON), creating dir.
// A runner calls it when a run starts, so that a crashed run still records
// what it ran; WriteRun writes it again at the end.
func WriteConfig(dir string, cfg any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode config: %w", err)
	}
	return writeFile(filepath.Join(dir, ConfigFile), append(b, '\n'))
}

// WriteRun writes one subject's run directory (creating dir): config.json,
// history.jsonl (unless the runner's file is already there, see
// RunArtifacts.HistoryPath), expect.json (RunArtifacts.Expect), result.json
// (a Summary, judged by the run's expectation if it has one),
// linearizability.html when the linearizable checker says invalid
// (porcupine's view of the illegal segments), history.html (the timeline,
// WriteTimeline), latency.png and throughput.png when plots are registered (RegisterPlots)
// and not turned off (NoPlots), and last summary.md, which links those of
// them that were written. It writes every artifact it
// can and returns the summary with the errors of those it could not, joined.
func WriteRun(dir string, a RunArtifacts) (Summary, error) {
	return WriteRunContext(context.Background(), dir, a)
}

// WriteRunContext is WriteRun that skips the timeline and the plots once
// ctx ends (a check that was interrupted): config.json, history.jsonl,
// result.json and summary.md are still written.
func WriteRunContext(ctx context.Context, dir string, a RunArtifacts) (Summary, error) {
	if a.History == nil {
		return Summary{}, errors.New("results: WriteRun: no history")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Summary{}, err
	}
	sum := Summarize(a.Subject, a.Release, a.Workload, a.Seed, a.History, a.Report)
	var errs []error
	exp, err := placeExpectation(dir, a.Expect)
	errs = append(errs, err)
	if exp != nil {
		j := exp.Judge(a.Report)
		sum.Expected = &j
	}
	if a.Plot.Title == "" {
		a.Plot.Title = strings.Trim(a.Subject+" / "+a.Workload, " /")
	}
	latency, throughput, drawn := registeredPlots()
	drawn = drawn && !a.NoPlots
	step := func(name string, f func() error) {
		plot := name == LatencyPlot || name == ThroughputPlot
		if plot && !drawn {
			return
		}
		if ctx.Err() != nil && (name == HTMLFile || name == LinearizabilityFile || plot) {
			errs = append(errs, fmt.Errorf("%s: not drawn: %w", name, context.Cause(ctx)))
			return
		}
		if err := f(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	if a.Config != nil {
		step(ConfigFile, func() error { return WriteConfig(dir, a.Config) })
	}
	step(HistoryFile, func() error { return placeHistory(dir, a.HistoryPath, a.History) })
	step(ResultFile, func() error {
		b, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(dir, ResultFile), append(b, '\n'))
	})
	// porcupine's view first: the timeline links it when it is there.
	step(LinearizabilityFile, func() error { return writeLinearizability(ctx, dir, a) })
	step(HTMLFile, func() error { return writeTimelineFile(dir, a, sum) })
	step(LatencyPlot, func() error {
		var buf bytes.Buffer
		if err := latency(&buf, a.History, a.Plot); err != nil {
			return err
		}
		return writeFile(filepath.Join(dir, LatencyPlot), buf.Bytes())
	})
	step(ThroughputPlot, func() error {
		var buf bytes.Buffer
		if err := throughput(&buf, a.History, a.Plot); err != nil {
			return err
		}
		return writeFile(filepath.Join(dir, ThroughputPlot), buf.Bytes())
	})
	// Last: it links the files the steps above left in dir.
	step(SummaryFile, func() error { return writeSummary(dir, sum, a.History) })
	return sum, errors.Join(errs...)
}

// placeExpectation writes exp as dir/expect.json and returns it; with exp
// nil it returns the expectation dir records already (nil: none).
func placeExpectation(dir string, exp *Expectation) (*Expectation, error) {
	if exp == nil {
		return LoadExpectation(dir)
	}
	if err := WriteExpectation(dir, *exp); err != nil {
		return exp, fmt.Errorf("%s: %w", ExpectFile, err)
	}
	return exp, nil
}

// writeSummary writes dir/summary.md for sum, linking the files dir holds.
func writeSummary(dir string, sum Summary, h *model.History) error {
	var buf bytes.Buffer
	if err := writeSummaryMarkdown(&buf, sum, h, func(name string) string { return keptName(dir, name) }); err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, SummaryFile), buf.Bytes())
}

// RewriteSummary writes dir/summary.md again from the run's result.json
// and history.jsonl, linking only the files dir holds now: for a copy of a
// run that keeps some of its files. The run must have a result.json.
func RewriteSummary(dir string) error {
	run, err := LoadRun(dir)
	if err != nil {
		return err
	}
	if run.Result == nil {
		return fmt.Errorf("%w: %s has no %s", ErrNoHistory, dir, ResultFile)
	}
	return writeSummary(dir, *run.Result, run.History)
}

// placeHistory makes sure dir/history.jsonl exists without clobbering it.
func placeHistory(dir, from string, h *model.History) error {
	dst := filepath.Join(dir, HistoryFile)
	if _, err := os.Stat(dst); err == nil {
		return nil // the runner's own file: never overwritten
	}
	if from != "" && !samePath(from, dst) {
		if _, err := os.Stat(from); err == nil {
			return CopyFile(from, dst, 0o644)
		}
	}
	var buf bytes.Buffer
	if err := model.WriteHistory(&buf, h); err != nil {
		return err
	}
	return writeFile(dst, buf.Bytes())
}

func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// CopyFile copies the file from into a new file to, made with perm; it
// never overwrites: an existing to is an error.
func CopyFile(from, to string, perm os.FileMode) error {
	return copyWith(from, to, perm, func(w io.Writer, r io.Reader) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// copyWith writes into a new file to, made with perm, what copy makes of
// the content of from; it never overwrites (an existing to is an error
// wrapping fs.ErrExist).
func copyWith(from, to string, perm os.FileMode, copy func(w io.Writer, r io.Reader) error) (err error) {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, out.Close()) }()
	return copy(out, in)
}

// writeFile writes b to path through a temporary file and a rename, so a
// reader never sees half a file.
func writeFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
