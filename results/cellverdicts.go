package results

import (
	"slices"
	"strings"

	"github.com/lockcheck/lockcheck/model"
)

// exampleLimit bounds a rendered example kept in a matrix cell.
const exampleLimit = 4000

// CheckerVerdicts returns every checker's verdict in rep, each Invalid one
// with its first example rendered (ops, fault windows, cause).
func CheckerVerdicts(rep model.Report) []CheckerVerdict {
	var out []CheckerVerdict
	for _, r := range rep.Results {
		cv := CheckerVerdict{Checker: r.Checker, Verdict: r.Verdict, Allowed: r.Allowed}
		if r.Verdict == model.Invalid {
			cv.Class, cv.Count = r.Class, r.Count
			for i, ex := range r.Examples {
				if i == 0 {
					cv.Example, cv.AllowedBy = clip(ex.String(), exampleLimit), ex.AllowedBy
				}
				cv.Unexplained = cv.Unexplained || unexplained(ex)
			}
		}
		out = append(out, cv)
	}
	return out
}

// unexplained says an example is a safety violation that neither a lease
// running out nor a lossy fault explains: the checker's cause calls it an
// implementation bug.
func unexplained(ex model.Example) bool {
	return ex.Class == model.ClassSafety && ex.Cause != "" && !ex.LeaseCouldExpire && !ex.HoldCouldBeLost
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n…"
}

// Checker returns the named checker's verdict in the cell, if it ran.
func (c MatrixCell) Checker(name string) (CheckerVerdict, bool) {
	for _, cv := range c.Checkers {
		if cv.Checker == name {
			return cv, true
		}
	}
	return CheckerVerdict{}, false
}

// Findings names the checkers whose Invalid verdict counts against the
// lock: those the cell's expectation does not tolerate (see Tolerated).
// A tolerated violation is never a finding, even one the checker's cause
// calls an implementation bug (Unexplained): on a split brain, two masters
// grant the lock while no lease ran out and no server lost data, so that
// cause is not evidence against the lock there.
func (c MatrixCell) Findings() []string {
	return findings(c.Checkers, c.Tolerated)
}

func findings(cvs []CheckerVerdict, tolerated []string) []string {
	var out []string
	for _, cv := range cvs {
		if cv.Verdict == model.Invalid && !slices.Contains(tolerated, cv.Checker) {
			out = append(out, cv.Checker)
		}
	}
	return out
}

// Reproduced counts the reruns that found checker's violation again (as
// a finding), and the reruns that gave a verdict.
func (c MatrixCell) Reproduced(checker string) (same, ran int) {
	for _, r := range c.Reruns {
		if r.Error != "" {
			continue
		}
		ran++
		if slices.Contains(findings(r.Checkers, c.Tolerated), checker) {
			same++
		}
	}
	return same, ran
}

// ExampleOf returns the first example of the named checker ("" if none),
// trimmed.
func (c MatrixCell) ExampleOf(checker string) string {
	cv, _ := c.Checker(checker)
	return strings.TrimSpace(cv.Example)
}
