package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// A run directory that records an expectation is judged by it: result.json
// says whether the report meets it, summary.md's headline says how the run
// went, and LoadRun reads the expectation back.
func TestWriteRunJudgesTheRecordedExpectation(t *testing.T) {
	for _, tc := range []struct {
		name     string
		exp      Expectation
		met      bool
		headline string
	}{
		{"met", Expectation{Scenario: "no-faults", Subject: "reentrant", Label: "valid", Verdict: model.Valid}, true,
			"# lockcheck: reentrant on no-faults: as expected (valid)\n"},
		{"not met", Expectation{Scenario: "client-stall", Subject: "reentrant", Label: "mutex broken", Verdict: model.Invalid,
			Checkers: map[string]model.Verdict{model.CheckMutualExclusion: model.Invalid}}, false,
			"# lockcheck: reentrant on client-stall: NOT as expected (mutex broken): verdict valid, want invalid; mutual-exclusion valid, want invalid\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := WriteExpectation(dir, tc.exp); err != nil {
				t.Fatal(err)
			}
			sum, _ := writeSynthRun(t, dir, synthHistory(42, 2*time.Second))
			if sum.Expected == nil || sum.Expected.Met != tc.met {
				t.Fatalf("summary's expectation: %+v, want met %v", sum.Expected, tc.met)
			}
			md, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
			if !strings.HasPrefix(string(md), tc.headline) {
				t.Errorf("summary.md's headline:\n%s\nwant:\n%s", strings.SplitN(string(md), "\n", 2)[0], tc.headline)
			}
			run, err := LoadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if run.Expect == nil || !reflect.DeepEqual(*run.Expect, tc.exp) {
				t.Errorf("LoadRun's expectation: %+v, want %+v", run.Expect, tc.exp)
			}
			if run.Result == nil || !reflect.DeepEqual(run.Result.Expected, sum.Expected) {
				t.Errorf("result.json's expectation: %+v, want %+v", run.Result, sum.Expected)
			}
		})
	}
}

// An invalid verdict that was expected says whether the fault allowed it.
func TestJudgementPhrase(t *testing.T) {
	exp := Expectation{Label: "mutex broken", Verdict: model.Invalid}
	report := func(allowance model.Verdict) model.Report {
		return model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckMutualExclusion, Verdict: model.Invalid},
			{Checker: model.CheckAllowance, Verdict: allowance},
		}}
	}
	for allowance, want := range map[model.Verdict]string{
		model.Valid:   "as expected (mutex broken, allowed by the fault)",
		model.Invalid: "as expected (mutex broken, beyond the fault)",
	} {
		rep := report(allowance)
		if got := exp.Judge(rep).Phrase(rep); got != want {
			t.Errorf("fault-allowance %s: %q, want %q", allowance, got, want)
		}
	}
	if e, err := LoadExpectation(t.TempDir()); e != nil || err != nil {
		t.Errorf("a directory without expect.json: %+v, %v", e, err)
	}
}
