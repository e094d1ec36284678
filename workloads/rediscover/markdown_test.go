package rediscover

import (
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// The page reads told apart first, then found with the signature, then
// flagged for something else, in its headline and in its table.
func TestMarkdownOrder(t *testing.T) {
	row := func(id string, out Outcome, c *Contrast) Row {
		r := Row{Bug: testBug(id), Outcome: out, Contrast: c, FixedOutcome: Clean}
		if out == Found {
			r.Buggy.Find = &Finding{Run: 1, Reproduced: true, Command: "lockcheck run --subject lib@1.0.0 --seed 1"}
		}
		if out == OtherFind {
			r.Buggy.Others = []Finding{{Run: 2, Signatures: []model.Signature{sig(t, "refusal/refused-free/acquire/none")}}}
		}
		return r
	}
	rep := &Report{Rows: []Row{
		row("missed", NotFound, nil),
		row("other", OtherFind, nil),
		row("found", Found, &Contrast{Runs: 5, BuggyHits: 2, P: 0.22}),
		row("apart", Found, &Contrast{Runs: 5, BuggyHits: 5, P: 0.004}),
	}}
	rep.total()
	var md strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	page := md.String()
	if !strings.Contains(page, "**1 of 4 producible bugs told apart from their fix; 1 more found with the signature; 1 flagged for something else.**") {
		t.Errorf("headline:\n%s", page)
	}
	at := func(id string) int { return strings.Index(page, "| `"+id+"` (Lib)") }
	if !(at("apart") < at("found") && at("found") < at("other") && at("other") < at("missed")) || at("apart") < 0 {
		t.Errorf("rows not in status order:\n%s", page)
	}
	for _, want := range []string{"5/5 / 0/5 (p = 0.004)", "2/5 / 0/5 (p = 0.22)", "run 2: `refusal/refused-free/acquire/none`"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
}

// A release's other finds are listed once per set of signatures, at the
// first run that showed it, with how many later finds showed it again.
func TestOthersCellGroupsRepeats(t *testing.T) {
	sigs := func(text string) []model.Signature {
		s, err := model.ParseSignature(text)
		if err != nil {
			t.Fatal(err)
		}
		return []model.Signature{s}
	}
	refused, known := sigs("refusal/refused-free/acquire/none"), sigs("contract/hung/release/none")
	r := Row{Buggy: Hunted{Others: []Finding{
		{Run: 2, Signatures: refused}, {Run: 4, Signatures: known, Known: "b0"}, {Run: 5, Signatures: refused}, {Run: 9, Signatures: refused},
	}}}
	want := "run 2 and 2 more: `refusal/refused-free/acquire/none`; run 4: `contract/hung/release/none` (b0)"
	if got := othersCell(r); got != want {
		t.Errorf("othersCell = %q, want %q", got, want)
	}
}

// A fixed release flagged with the bug's signature is named with the other
// bug of that release whose signature the same run shows, if any: the flag
// stands (the bug's own signature is unexplained), and the page says what
// else the run showed.
func TestFlaggedCellNamesTheReleasesOtherBug(t *testing.T) {
	for _, c := range []struct{ known, want string }{
		{"", "**FLAGGED** in run 4 with the bug's signature (`lockcheck run x`)"},
		{"b0", "**FLAGGED** in run 4 with the bug's signature (`lockcheck run x`); the run shows the signature of b0 too"},
	} {
		r := Row{FixedOutcome: Flagged, Fixed: Hunted{Find: &Finding{Run: 4, Command: "`lockcheck run x`", Known: c.known}}}
		got := fixedCell(r)
		if !strings.HasPrefix(got, c.want) || c.known == "" && strings.Contains(got, "too") {
			t.Errorf("fixedCell = %q, want it to begin %q", got, c.want)
		}
	}
}
