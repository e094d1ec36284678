package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl/mutants"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// TestCatchRates measures how often `lockcheck run --subject S --workload
// hunt --duration 10s --seed N` (hunt: a mutant's default) catches each mutant over LOCKCHECK_CATCH_RATES
// seeds (and, as controls, passes the reference locks and the mutants'
// flawless base over half as many),
// with the median time to the first violation. A mutant with a Scenario
// runs `lockcheck run --subject S --scenario SC --seed N` instead, and is
// caught when the fault-allowance checker finds a violation beyond what
// the fault allows a correct lock (the "beyond" column; the scenario breaks
// every lease lock, so "invalid" alone proves nothing there); the base
// runs every such scenario too, as the control that must stay within the
// faults' allowance. It takes about 12 s a run,
// so it runs only when asked (make catch-rates) and writes its table to
// LOCKCHECK_CATCH_OUT (default results/catch-rates.md); LOCKCHECK_CATCH_RUNS
// keeps the run directories.
func TestCatchRates(t *testing.T) {
	seeds, _ := strconv.Atoi(os.Getenv("LOCKCHECK_CATCH_RATES"))
	if seeds <= 0 {
		t.Skip("set LOCKCHECK_CATCH_RATES=<seeds> (make catch-rates)")
	}
	base := catalog.MutantBase() // the mutants' flawless base, a control
	if _, err := catalog.Subjects.Lookup(base.Name); err != nil {
		if err := catalog.Subjects.Register(base); err != nil {
			t.Fatal(err)
		}
	}
	out := os.Getenv("LOCKCHECK_CATCH_RUNS") // keep the run directories there
	if out == "" {
		out = t.TempDir()
	}
	var rows []catchRow
	for _, c := range catchCells(base.Name) {
		n := seeds
		if !strings.HasPrefix(c.subject, "mutant-") {
			n = max(1, seeds/2)
		}
		row := catchRow{catchCell: c, checkers: map[string]int{}}
		for seed := 1; seed <= n; seed++ {
			workload := "hunt"
			if c.workload != "" {
				workload = c.workload
			}
			args := []string{"run", "--subject", c.subject, "--workload", workload, "--duration", "10s"}
			if c.scenario != "" {
				args = []string{"run", "--subject", c.subject, "--scenario", c.scenario}
			}
			code, stdout, stderr := lockcheck(t, append(args, "--seed", strconv.Itoa(seed), "--out", out, "--json")...)
			var sums []results.Summary
			if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 1 {
				t.Fatalf("%s seed %d: exit %d, no JSON summary (%v)\n%s", c, seed, code, err, stderr)
			}
			row.add(sums[0])
			t.Logf("%s seed %d: %s", c, seed, sums[0].Verdict())
		}
		rows = append(rows, row)
	}
	table := renderCatchRates(rows, seeds, measuredLine(t))
	t.Log("\n" + table)
	dest := os.Getenv("LOCKCHECK_CATCH_OUT")
	if dest == "" && os.Getenv("LOCKCHECK_CATCH_SUBJECTS") != "" {
		t.Log("a run of some subjects (LOCKCHECK_CATCH_SUBJECTS) leaves results/catch-rates.md as it is: its table is above")
		return
	}
	if dest == "" {
		dest = filepath.Join("..", "..", "results", "catch-rates.md")
	}
	if err := writeStatePage(dest, filepath.Join(filepath.Dir(dest), "log", filepath.Base(dest)), table); err != nil {
		t.Fatal(err)
	}
}

// Every mutant's exposing scenario is in the catalog (catch rates run it).
func TestMutantScenariosExist(t *testing.T) {
	for _, m := range mutants.All() {
		if m.Scenario == "" {
			continue
		}
		if _, err := scenario.Lookup(m.Scenario); err != nil {
			t.Errorf("%s: %v", m.Name, err)
		}
	}
}

// catchCell is one subject on one run: the hunt workload (scenario "") or
// a scenario.
type catchCell struct{ subject, scenario, workload string }

func (c catchCell) String() string {
	switch {
	case c.scenario != "":
		return c.subject + " on " + c.scenario
	case c.workload != "":
		return c.subject + " on " + c.workload
	}
	return c.subject
}

// catchCells lists what TestCatchRates runs: the reference locks and base
// on the hunt workload, every mutant on its run (Mutant.Scenario, or the
// hunt workload), base on each mutant's scenario; LOCKCHECK_CATCH_SUBJECTS
// keeps only the subjects it names (on every run of theirs).
func catchCells(base string) []catchCell {
	cells := []catchCell{{"reentrant", "", ""}, {"fenced", "", ""}, {"fair", "", ""}, {base, "", ""}, {"rwlock", "", mutants.RWWorkload}}
	var scenarios []string
	for _, m := range mutants.All() {
		cells = append(cells, catchCell{m.Name, m.Scenario, m.Workload})
		if m.Scenario != "" && !slices.Contains(scenarios, m.Scenario) {
			scenarios = append(scenarios, m.Scenario)
		}
	}
	for _, sc := range scenarios {
		cells = append(cells, catchCell{base, sc, ""})
	}
	only := os.Getenv("LOCKCHECK_CATCH_SUBJECTS")
	if only == "" {
		return cells
	}
	keep := strings.Split(only, ",")
	var out []catchCell
	for _, c := range cells {
		if slices.Contains(keep, c.subject) {
			out = append(out, c)
		}
	}
	for _, s := range keep {
		if !slices.ContainsFunc(out, func(c catchCell) bool { return c.subject == s }) {
			out = append(out, catchCell{s, "", ""}) // a subject that is not a mutant: the hunt
		}
	}
	return out
}

// catchRow is one cell's runs.
type catchRow struct {
	catchCell
	runs, invalid int
	unknown       int
	beyond        int // runs whose fault-allowance checker said invalid
	firsts        []time.Duration
	checkers      map[string]int // checker -> runs it said invalid
}

func (r *catchRow) add(s results.Summary) {
	r.runs++
	switch s.Verdict() {
	case model.Invalid:
		r.invalid++
		for _, c := range s.Report.Results {
			if c.Verdict == model.Invalid {
				r.checkers[c.Checker]++
			}
		}
	case model.Unknown:
		r.unknown++
	}
	rep := s.Report
	if b, ok := rep.Result(model.CheckAllowance); ok && b.Verdict == model.Invalid {
		r.beyond++
		if r.scenario != "" {
			rep = model.Report{Results: []model.Result{b}} // the first violation beyond the fault
		}
	} else if r.scenario != "" {
		return
	}
	if at, ok := results.FirstViolation(rep); ok {
		r.firsts = append(r.firsts, at)
	}
}

// caught is how many runs caught the subject: runs beyond the fault on a
// scenario, invalid runs on the hunt workload.
func (r *catchRow) caught() int {
	if r.scenario != "" {
		return r.beyond
	}
	return r.invalid
}

// renderCatchRates is the page's head: how it was measured (measured: the
// date and commit, measuredLine) and the table.
func renderCatchRates(rows []catchRow, seeds int, measured string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Catch rates: `lockcheck run --subject S --workload hunt --duration 10s --seed N`, or `--scenario SC --seed N`\n\n")
	b.WriteString("(hunt is the default workload of a mutant; a mutant with an exposing scenario runs on it instead, where it counts as caught only when the fault-allowance checker fires: " +
		"a violation beyond what the fault allows a correct lock, column beyond)\n\n")
	fmt.Fprintf(&b, "Seeds 1..%d per mutant, 1..%d per reference lock and per control; %s by `make catch-rates`. Earlier measurements: [log/catch-rates.md](log/catch-rates.md).\n\n", seeds, max(1, seeds/2), measured)
	b.WriteString("| subject | run | runs | invalid | beyond | unknown | rate | median first violation | slowest | caught by (runs) |\n|:--|:--|--:|--:|--:|--:|--:|--:|--:|:--|\n")
	for _, r := range rows {
		slices.Sort(r.firsts)
		med, slow := "–", "–"
		if n := len(r.firsts); n > 0 {
			med, slow = results.FormatDuration(r.firsts[n/2]), results.FormatDuration(r.firsts[n-1])
		}
		var by []string
		for c, n := range r.checkers {
			by = append(by, fmt.Sprintf("%s (%d)", c, n))
		}
		slices.Sort(by)
		run, rate := "hunt", fmt.Sprintf("%.0f%%", 100*float64(r.caught())/float64(r.runs))
		if r.workload != "" {
			run = r.workload
		}
		if r.scenario != "" {
			run, rate = r.scenario, rate+" beyond"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %s | %s | %s | %s |\n", r.subject, run, r.runs, r.invalid, r.beyond, r.unknown,
			rate, med, slow, strings.Join(by, ", "))
	}
	return b.String()
}
