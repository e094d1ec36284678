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

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// TestCatchRates measures how often `lockcheck run --subject S --workload
// hunt --duration 10s --seed N` (hunt: a mutant's default) catches each mutant over LOCKCHECK_CATCH_RATES
// seeds (and, as controls, passes the reference locks and the mutants'
// flawless base over half as many),
// with the median time to the first violation. It takes about 12 s a run,
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
	subjects := []string{"reentrant", "fenced", "fair", base.Name}
	for _, s := range catalog.Subjects.All() {
		if s.Kind == subject.KindMutant {
			subjects = append(subjects, s.Name)
		}
	}
	if only := os.Getenv("LOCKCHECK_CATCH_SUBJECTS"); only != "" {
		subjects = strings.Split(only, ",")
	}
	out := os.Getenv("LOCKCHECK_CATCH_RUNS") // keep the run directories there
	if out == "" {
		out = t.TempDir()
	}
	var rows []catchRow
	for _, subj := range subjects {
		n := seeds
		if !strings.HasPrefix(subj, "mutant-") {
			n = max(1, seeds/2)
		}
		row := catchRow{subject: subj, checkers: map[string]int{}}
		for seed := 1; seed <= n; seed++ {
			code, stdout, stderr := lockcheck(t, "run", "--subject", subj, "--workload", "hunt", "--duration", "10s", "--seed", strconv.Itoa(seed), "--out", out, "--json")
			var sums []results.Summary
			if err := json.Unmarshal([]byte(stdout), &sums); err != nil || len(sums) != 1 {
				t.Fatalf("%s seed %d: exit %d, no JSON summary (%v)\n%s", subj, seed, code, err, stderr)
			}
			row.add(sums[0])
			t.Logf("%s seed %d: %s", subj, seed, sums[0].Verdict())
		}
		rows = append(rows, row)
	}
	table := renderCatchRates(rows, seeds)
	t.Log("\n" + table)
	dest := os.Getenv("LOCKCHECK_CATCH_OUT")
	if dest == "" {
		dest = filepath.Join("..", "..", "results", "catch-rates.md")
	}
	if err := os.WriteFile(dest, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
}

// catchRow is one subject's runs.
type catchRow struct {
	subject       string
	runs, invalid int
	unknown       int
	firsts        []time.Duration
	checkers      map[string]int // checker -> runs it said invalid
}

func (r *catchRow) add(s results.Summary) {
	r.runs++
	switch s.Verdict() {
	case model.Invalid:
		r.invalid++
		if at, ok := results.FirstViolation(s.Report); ok {
			r.firsts = append(r.firsts, at)
		}
		for _, c := range s.Report.Results {
			if c.Verdict == model.Invalid {
				r.checkers[c.Checker]++
			}
		}
	case model.Unknown:
		r.unknown++
	}
}

func renderCatchRates(rows []catchRow, seeds int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Catch rates: `lockcheck run --subject S --workload hunt --duration 10s --seed N`\n\n(hunt is the default workload of a mutant)\n\n")
	fmt.Fprintf(&b, "Seeds 1..%d per mutant, 1..%d per reference lock; measured %s by `make catch-rates`.\n\n", seeds, max(1, seeds/2), time.Now().UTC().Format("2006-01-02"))
	b.WriteString("| subject | runs | invalid | unknown | rate | median first violation | slowest | caught by (runs) |\n|:--|--:|--:|--:|--:|--:|--:|:--|\n")
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
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.0f%% | %s | %s | %s |\n", r.subject, r.runs, r.invalid, r.unknown,
			100*float64(r.invalid)/float64(r.runs), med, slow, strings.Join(by, ", "))
	}
	return b.String()
}
