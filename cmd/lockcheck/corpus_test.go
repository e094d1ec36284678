package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
)

// corpusFile holds the corpus's expectations that differ from what a run
// directory recorded: a verdict a checker's improvement changed, with why.
const corpusFile = "results/corpus.json"

// corpusRaceSample: under the race detector TestRegressionCorpus re-checks
// every corpusRaceSample-th history, in path order.
const corpusRaceSample = 8

// corpusExpectation is a re-check's verdicts where they differ from the
// run's result.json: the whole verdict and each changed checker's.
type corpusExpectation struct {
	Verdict  model.Verdict            `json:"verdict"`
	Checkers map[string]model.Verdict `json:"checkers,omitempty"`
	Note     string                   `json:"note"`
}

// TestRegressionCorpus re-checks every committed history (history.jsonl
// of a run directory under results/) the way `lockcheck check DIR` does,
// in-process, and expects the verdicts the run recorded (result.json),
// whole and per checker, unless results/corpus.json records a newer
// verdict with a note. The whole corpus takes about 8 s, so -short
// re-checks all of it too; under the race detector, which makes it 20
// times slower (154 s under make test), one history in corpusRaceSample,
// and make test re-checks the whole corpus without -race as well
// (LOCKCHECK_CORPUS=all: the whole corpus with -race).
func TestRegressionCorpus(t *testing.T) {
	root := repoRoot(t)
	dirs := corpusDirs(t, root)
	if len(dirs) < 10 {
		t.Fatalf("only %d committed histories: is the walk broken?", len(dirs))
	}
	expect := readCorpusExpectations(t, root)
	for dir := range expect {
		if !slices.Contains(dirs, dir) {
			t.Errorf("%s: an expectation for %s, which holds no committed history", corpusFile, dir)
		}
	}
	if raceDetector && os.Getenv("LOCKCHECK_CORPUS") != "all" {
		var sample []string
		for i := 0; i < len(dirs); i += corpusRaceSample {
			sample = append(sample, dirs[i])
		}
		t.Logf("race detector: re-checking %d of %d histories (one in %d); make test re-checks all without it", len(sample), len(dirs), corpusRaceSample)
		dirs = sample
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			start := time.Now()
			if err := recheck(t, filepath.Join(root, dir), expect[dir]); err != nil {
				t.Error(err)
			}
			t.Logf("%.2fs", time.Since(start).Seconds())
		})
	}
	t.Logf("%d committed histories re-checked", len(dirs))
}

// recheck re-checks the run directory dir as `lockcheck check` does and
// compares its verdicts with the recorded ones (or with want, when set).
func recheck(t *testing.T, dir string, want *corpusExpectation) error {
	run, err := results.LoadRun(dir)
	if err != nil {
		return err
	}
	if run.Result == nil {
		return fmt.Errorf("%s: no %s to compare with", dir, results.ResultFile)
	}
	var errOut bytes.Buffer
	_, opts, err := checkOptions(&env{stdout: &errOut, stderr: &errOut}, run, 0, 0)
	if err != nil {
		return err
	}
	now := model.CheckContext(t.Context(), run.History, opts)
	recorded := run.Result.Report
	if want == nil {
		if change := verdictChange(recorded, now); change != "" {
			return fmt.Errorf("the verdicts changed: %s\n(a checker's improvement? record the new verdict with a note in %s)", change, corpusFile)
		}
		return nil
	}
	return want.compare(recorded, now)
}

// compare checks now against the expectation: its whole verdict, each
// checker it names, and every other checker as recorded.
func (w *corpusExpectation) compare(recorded, now model.Report) error {
	var errs []error
	if now.Verdict != w.Verdict {
		errs = append(errs, fmt.Errorf("verdict %s, %s expects %s (%s)", now.Verdict, corpusFile, w.Verdict, w.Note))
	}
	for _, r := range now.Results {
		want, ok := w.Checkers[r.Checker]
		if !ok {
			old, had := recorded.Result(r.Checker)
			want, ok = old.Verdict, had
		}
		if ok && r.Verdict != want {
			errs = append(errs, fmt.Errorf("%s: %s, want %s", r.Checker, r.Verdict, want))
		}
	}
	if recorded.Verdict == w.Verdict && verdictChange(recorded, now) == "" {
		errs = append(errs, fmt.Errorf("the re-check agrees with %s again: remove its entry from %s", results.ResultFile, corpusFile))
	}
	return errors.Join(errs...)
}

// corpusDirs are the run directories under results/ whose history.jsonl
// git tracks (every one on disk outside a git checkout), relative to root.
func corpusDirs(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	for _, f := range trackedFiles(t, root, "results") {
		if path.Base(f) == results.HistoryFile || path.Base(f) == results.HistoryFile+results.Gz {
			dirs = append(dirs, path.Dir(f))
		}
	}
	slices.Sort(dirs)
	return dirs
}

// readCorpusExpectations reads results/corpus.json: run directory →
// expectation; every entry must say why.
func readCorpusExpectations(t *testing.T, root string) map[string]*corpusExpectation {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, corpusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]*corpusExpectation
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("%s: %v", corpusFile, err)
	}
	for dir, e := range m {
		if strings.TrimSpace(e.Note) == "" || e.Verdict == "" {
			t.Errorf("%s: %s: an expectation needs its verdict and a note saying why it changed", corpusFile, dir)
		}
	}
	return m
}

// trackedFiles are the files under dir of root that git tracks (every file
// there outside a git checkout), relative to root with slashes.
func trackedFiles(t *testing.T, root, dir string) []string {
	t.Helper()
	if out, err := exec.Command("git", "-C", root, "ls-files", "--", dir).Output(); err == nil {
		return strings.Fields(string(out))
	}
	var files []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestCorpusExpectationCompare proves the corpus's comparison can fail: a
// recorded expectation holds for the re-check it describes, and fails on a
// whole verdict or a checker's that differs from it, on a checker it does
// not name that differs from the record, and once the re-check agrees
// with the record again.
func TestCorpusExpectationCompare(t *testing.T) {
	report := func(v model.Verdict, checkers ...model.Result) model.Report {
		return model.Report{Verdict: v, Results: checkers}
	}
	res := func(c string, v model.Verdict) model.Result { return model.Result{Checker: c, Verdict: v} }
	recorded := report(model.Invalid, res("linearizable", model.Invalid), res("fault-allowance", model.Invalid))
	want := &corpusExpectation{Verdict: model.Invalid, Checkers: map[string]model.Verdict{"fault-allowance": model.Valid}, Note: "why"}
	for _, tc := range []struct {
		name string
		now  model.Report
		ok   bool
	}{
		{"as expected", report(model.Invalid, res("linearizable", model.Invalid), res("fault-allowance", model.Valid)), true},
		{"whole verdict", report(model.Valid, res("linearizable", model.Invalid), res("fault-allowance", model.Valid)), false},
		{"named checker", report(model.Invalid, res("linearizable", model.Invalid), res("fault-allowance", model.Unknown)), false},
		{"other checker", report(model.Invalid, res("linearizable", model.Valid), res("fault-allowance", model.Valid)), false},
		{"agrees again", recorded, false},
	} {
		if err := want.compare(recorded, tc.now); (err == nil) != tc.ok {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
