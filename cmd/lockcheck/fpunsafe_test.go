package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// unsafeScenarios are the catalog's unsafe scenarios that lockcheck builds
// itself (the remote ones need a deployment).
func unsafeScenarios() []string {
	var out []string
	for _, sc := range scenario.Catalog() {
		if !sc.Safe && !strings.HasPrefix(sc.Name, "remote-") {
			out = append(out, sc.Name)
		}
	}
	return out
}

// fpUnsafe is the false-positive campaign's second half: every subject on
// every unsafe scenario through `lockcheck nightly` over seeds first ..
// first+seeds-1. There a correct lock breaks, as any lease lock must, but
// never beyond what the fault allows (the fault-allowance checker): each
// cell beyond the fault is listed with its command and run directory.
func fpUnsafe(t *testing.T, subjects []string, first int64, seeds int, out string) string {
	base := filepath.Join(out, "unsafe")
	code, _, stderr := lockcheck(t, "nightly", "--scenarios", strings.Join(unsafeScenarios(), ","), "--subjects", strings.Join(subjects, ","),
		"--seeds", strconv.Itoa(seeds), "--seed-base", strconv.FormatInt(first-1, 10), "--out", base)
	paths, _ := filepath.Glob(filepath.Join(base, "runs", "nightly", "*", results.MatrixFileName))
	if len(paths) != 1 {
		t.Fatalf("nightly over the unsafe scenarios: exit %d, %d matrices\n%s", code, len(paths), stderr)
	}
	m, err := results.LoadMatrix(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return renderUnsafe(m.Cells, filepath.Dir(paths[0]))
}

// unsafeRow counts one subject's cells on the unsafe scenarios.
type unsafeRow struct {
	cells, allowed, beyond, valid, skipped, errors int
}

// renderUnsafe is the unsafe half's table and its list of cells beyond
// the fault.
func renderUnsafe(cells []results.MatrixCell, dir string) string {
	rows := map[string]*unsafeRow{}
	var order []string
	var beyond []string
	for _, c := range cells {
		r := rows[c.Subject]
		if r == nil {
			r = &unsafeRow{}
			rows[c.Subject] = r
			order = append(order, c.Subject)
		}
		r.cells++
		switch {
		case c.Skip != "":
			r.skipped++
		case c.Error != "":
			r.errors++
		case c.Beyond:
			r.beyond++
			ex := strings.SplitN(c.ExampleOf(model.CheckAllowance), "\n", 2)[0]
			beyond = append(beyond, fmt.Sprintf("- %s: %s — `%s` (%s)", c.Key(), ex, c.Command, filepath.Join(dir, c.Dir)))
		case c.Verdict == model.Invalid:
			r.allowed++
		default:
			r.valid++
		}
	}
	slices.Sort(order)
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Unsafe scenarios: beyond the fault\n\n`lockcheck nightly --scenarios %s` over the same seeds. "+
		"A correct lock breaks there as any lease lock must (\"allowed by the fault\"); the target is 0 beyond the fault.\n\n",
		strings.Join(unsafeScenarios(), ","))
	b.WriteString("| subject | cells | allowed by the fault | beyond the fault | valid | skipped | errors |\n|:--|--:|--:|--:|--:|--:|--:|\n")
	total := 0
	for _, s := range order {
		r := rows[s]
		total += r.beyond
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", s, r.cells, r.allowed, r.beyond, r.valid, r.skipped, r.errors)
	}
	fmt.Fprintf(&b, "\nBeyond the fault in all: %d.\n", total)
	for _, line := range beyond {
		b.WriteString("\n" + line)
	}
	b.WriteString("\n")
	return b.String()
}

// The unsafe half counts a cell beyond the fault apart from one the fault
// allows, and lists it with its command.
func TestRenderUnsafe(t *testing.T) {
	cells := []results.MatrixCell{
		{Scenario: "client-stall", Subject: "a", Seed: 1, Verdict: model.Invalid},
		{Scenario: "client-stall", Subject: "a", Seed: 2, Verdict: model.Invalid, Beyond: true, Command: "lockcheck run x"},
		{Scenario: "partition-long", Subject: "b", Seed: 1, Verdict: model.Valid},
		{Scenario: "partition-long", Subject: "b", Seed: 2, Skip: "no"},
	}
	got := renderUnsafe(cells, "d")
	for _, want := range []string{"| a | 2 | 1 | 1 | 0 | 0 | 0 |", "| b | 2 | 0 | 0 | 1 | 1 | 0 |", "Beyond the fault in all: 1.", "client-stall/a/2", "`lockcheck run x`"} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
}
