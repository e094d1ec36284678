package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// ExpectFile is the file of a run directory that records what the run was
// expected to give: a scenario run's expectation for its subject.
const ExpectFile = "expect.json"

// Expectation is what a scenario run expects of its report, recorded in
// its run directory (ExpectFile) when the run starts, so that a re-check
// judges the run as the run itself did. Its fields are those of
// workloads/scenario.Expect, which computes it; Match judges as
// scenario.Expect.Match does.
type Expectation struct {
	// Scenario and Subject name the run.
	Scenario string `json:"scenario"`
	Subject  string `json:"subject"`
	// Label is the expectation in a few words ("valid", "mutex broken").
	Label string `json:"label"`
	// Verdict is the combined verdict required ("": any).
	Verdict model.Verdict `json:"verdict,omitempty"`
	// Checkers are verdicts individual checkers must give (a checker named
	// here must have run).
	Checkers map[string]model.Verdict `json:"checkers,omitempty"`
	// Quiet are checkers that must not report invalid.
	Quiet []string `json:"quiet,omitempty"`
	// MayBreak are checkers the fault allows to report invalid; Match
	// ignores them.
	MayBreak []string `json:"may_break,omitempty"`
}

// Match reports whether rep meets e, and if not, why.
func (e Expectation) Match(rep model.Report) (bool, string) {
	var why []string
	if e.Verdict != "" && rep.Verdict != e.Verdict {
		why = append(why, fmt.Sprintf("verdict %s, want %s", rep.Verdict, e.Verdict))
	}
	names := make([]string, 0, len(e.Checkers))
	for c := range e.Checkers {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		want := e.Checkers[c]
		r, ok := rep.Result(c)
		switch {
		case !ok:
			why = append(why, c+" did not run")
		case r.Verdict != want:
			why = append(why, fmt.Sprintf("%s %s, want %s", c, r.Verdict, want))
		}
	}
	for _, c := range e.Quiet {
		if r, ok := rep.Result(c); ok && r.Verdict == model.Invalid {
			why = append(why, c+" invalid, must not fire")
		}
	}
	return len(why) == 0, strings.Join(why, "; ")
}

// Judgement is an Expectation applied to a report: result.json's
// "expected".
type Judgement struct {
	Expectation
	// Met says the report meets the expectation; Why says how it does not.
	Met bool   `json:"met"`
	Why string `json:"why,omitempty"`
}

// Judge applies e to rep.
func (e Expectation) Judge(rep model.Report) Judgement {
	ok, why := e.Match(rep)
	return Judgement{Expectation: e, Met: ok, Why: why}
}

// Phrase says how the run went against its expectation, for a headline:
// "as expected (mutex broken, allowed by the fault)" or "NOT as expected
// (valid): verdict invalid, want valid". rep is the report judged; an
// invalid verdict says whether the fault-allowance checker allowed it.
func (j Judgement) Phrase(rep model.Report) string {
	label := j.Label
	if rep.Verdict == model.Invalid {
		if r, ok := rep.Result(model.CheckAllowance); ok && r.Verdict == model.Valid {
			label += ", allowed by the fault"
		} else if ok && r.Verdict == model.Invalid {
			label += ", beyond the fault"
		}
	}
	if j.Met {
		return "as expected (" + label + ")"
	}
	return "NOT as expected (" + label + "): " + j.Why
}

// WriteExpectation writes e as dir/expect.json; dir must exist. A runner
// writes it when the run starts, before the history.
func WriteExpectation(dir string, e Expectation) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode expectation: %w", err)
	}
	return writeFile(filepath.Join(dir, ExpectFile), append(b, '\n'))
}

// LoadExpectation reads dir/expect.json: nil with no error when dir records
// no expectation (a run that was not a scenario's); an error wrapping
// ErrCorrupt when the file does not decode.
func LoadExpectation(dir string) (*Expectation, error) {
	p := filepath.Join(dir, ExpectFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, p, err)
	}
	var e Expectation
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, p, err)
	}
	return &e, nil
}
