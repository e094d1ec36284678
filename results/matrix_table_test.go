package results

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// The one matrix renderer: matrix.md (WriteReportMarkdown over one
// matrix) and the terminal table (WriteMatrixTable) show each cell's
// verdict with the abbreviated checkers that fired and its class, "!" on a
// cell not as expected, detection rates counting only cells whose owners
// fired, the unexpected cells and the scenarios.
func TestMatrixRendering(t *testing.T) {
	owned := unsafeCell(1, model.Invalid, time.Second)
	owned.Subject, owned.Invalid, owned.Class, owned.Owners = "reentrant", []string{model.CheckLinearizable}, model.ClassSafety, []string{model.CheckLinearizable}
	missed := unsafeCell(2, model.Valid, 0)
	missed.Subject, missed.Owners, missed.Why = "reentrant", []string{model.CheckLinearizable}, "verdict valid, want invalid"
	bystander := unsafeCell(7, model.Invalid, time.Second)
	bystander.Invalid, bystander.Class, bystander.Owners = []string{model.CheckFairness}, model.ClassFairness, []string{model.CheckLinearizable}
	bystander.OK, bystander.Why = false, "linearizable valid, want invalid; fairness invalid, must not fire"
	mf := MatrixFile{Title: "lockcheck nightly t", Cells: []MatrixCell{safeCell(1, model.Valid), owned, missed, bystander},
		Scenarios: []ScenarioInfo{{Name: "client-stall", Doc: "a holder frozen"}}}
	rep := MatrixReport(mf, filepath.Join(t.TempDir(), MatrixFileName), time.Now())
	if rep.Rows[0].Scenario != "no-faults" || rep.Rows[1].Subject != "reentrant" {
		t.Fatalf("rows are not in run order: %+v", rep.Rows)
	}
	var md, term bytes.Buffer
	if err := WriteReportMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteMatrixTable(&term, rep, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# lockcheck nightly t", "1: invalid (lin; safety)", "2: valid !", "detected 1/2", "NO (1/2)",
		"7: invalid (fair; fairness) !", "detected 0/1", "## Not as expected", "client-stall/fair/7: linearizable valid",
		"**client-stall** (unsafe): a holder frozen", "lin = linearizable"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("matrix.md lacks %q:\n%s", want, md.String())
		}
	}
	for _, want := range []string{"1: invalid (lin; safety)", "detected 1/2", "7: invalid (fair; fairness) !", "false positives 0/1"} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, term.String())
		}
	}
}
