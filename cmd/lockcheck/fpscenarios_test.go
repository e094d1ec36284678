package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// fpScenarioSet is the false-positive campaign's scenarios, from
// LOCKCHECK_FP_SCENARIOS: "all" (the default: every scenario lockcheck
// builds itself, safe and unsafe; the remote ones need a deployment),
// "unsafe", a comma-separated list, or "0" for none.
func fpScenarioSet() []string {
	set := os.Getenv("LOCKCHECK_FP_SCENARIOS")
	switch set {
	case "0":
		return nil
	case "", "all", "unsafe":
		var out []string
		for _, sc := range scenario.Catalog() {
			if !strings.HasPrefix(sc.Name, "remote-") && (set != "unsafe" || !sc.Safe) {
				out = append(out, sc.Name)
			}
		}
		return out
	}
	return strings.Split(set, ",")
}

// fpScenarios is the false-positive campaign's second half: every subject
// on every scenario of fpScenarioSet through `lockcheck nightly`, over
// seeds first .. first+seeds-1. A correct lock must meet each scenario's
// expectation, and even where a fault breaks it (the unsafe scenarios, a
// pause that costs a hold) never go beyond what the fault allows.
//
// It runs in LOCKCHECK_FP_SHARDS shards (default 1), each `nightly
// --shard I/N` into dir/shard-I-of-N, moved there only once whole: a
// shard already there is not run again, so a campaign stopped part way
// goes on where it stopped. No shard starts once LOCKCHECK_FP_BUDGET (a
// duration; default none) has passed; the table then covers the shards
// done, and says how many.
func fpScenarios(t *testing.T, subjects, scenarios []string, first int64, seeds int, dir string) string {
	shards, _ := strconv.Atoi(os.Getenv("LOCKCHECK_FP_SHARDS"))
	shards = max(shards, 1)
	budget, _ := time.ParseDuration(os.Getenv("LOCKCHECK_FP_BUDGET"))
	start := time.Now()
	var (
		cells []results.MatrixCell
		ran   []string
	)
	done := 0
	for i := 1; i <= shards; i++ {
		shard := filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d", i, shards))
		if _, err := os.Stat(shard); err != nil {
			if budget > 0 && time.Since(start) > budget {
				continue
			}
			fpShard(t, subjects, scenarios, first, seeds, fmt.Sprintf("%d/%d", i, shards), shard)
		}
		cells = append(cells, shardCells(t, shard)...)
		ran = append(ran, fmt.Sprintf("%d at %s", i, shardCommit(shard)))
		done++
	}
	table := renderScenarios(cells, scenarios) + "\nShards run (at lockcheck's commit): " + strings.Join(ran, ", ") + ".\n"
	if done < shards {
		t.Logf("budget %s spent: %d of %d shards run; run again to go on (%s)", budget, done, shards, dir)
		table += fmt.Sprintf("\n**Part of the campaign:** %d of its %d shards (cells hashed by scenario, subject and seed) have run; "+
			"the same command with the same FIRST goes on from %s.\n", done, shards, dir)
	}
	return table
}

// fpShard runs one shard of the scenario half into dest (through dest.part).
func fpShard(t *testing.T, subjects, scenarios []string, first int64, seeds int, shard, dest string) {
	part, commit := dest+".part", headCommit(t) // the commit the test's lockcheck was built at
	if err := os.RemoveAll(part); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lockcheck(t, "nightly", "--scenarios", strings.Join(scenarios, ","), "--subjects", strings.Join(subjects, ","),
		"--seeds", strconv.Itoa(seeds), "--seed-base", strconv.FormatInt(first-1, 10), "--shard", shard, "--out", part)
	if _, err := shardMatrix(part); err != nil {
		t.Fatalf("nightly shard %s: exit %d, %v\n%s", shard, code, err, stderr)
	}
	if err := os.WriteFile(filepath.Join(part, shardCommitFile), []byte(commit+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(part, dest); err != nil {
		t.Fatal(err)
	}
}

// shardCommitFile, in a shard's directory, names the commit it ran at.
const shardCommitFile = "COMMIT"

// shardCommit is the commit shard ran at, or "an unrecorded commit".
func shardCommit(shard string) string {
	b, err := os.ReadFile(filepath.Join(shard, shardCommitFile))
	if c := strings.TrimSpace(string(b)); err == nil && c != "" {
		return c
	}
	return "an unrecorded commit"
}

// shardCells loads a shard's cells, each Dir made a path from the working
// directory.
func shardCells(t *testing.T, shard string) []results.MatrixCell {
	path, err := shardMatrix(shard)
	if err != nil {
		t.Fatal(err)
	}
	m, err := results.LoadMatrix(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Cells {
		if m.Cells[i].Dir != "" {
			m.Cells[i].Dir = filepath.Join(filepath.Dir(path), m.Cells[i].Dir)
		}
	}
	return m.Cells
}

// shardMatrix is the path of the one matrix nightly wrote under dir.
func shardMatrix(dir string) (string, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "runs", "nightly", "*", results.MatrixFileName))
	if len(paths) != 1 {
		return "", fmt.Errorf("%s: %d matrices, want 1", dir, len(paths))
	}
	return paths[0], nil
}

// scenarioRow counts one subject's cells on the scenarios.
type scenarioRow struct {
	cells, valid, allowed, missed, beyond, skipped, errors int
}

// renderScenarios is the scenario half's table and its list of the cells
// that went beyond the fault or did not meet their expectation.
func renderScenarios(cells []results.MatrixCell, scenarios []string) string {
	rows := map[string]*scenarioRow{}
	var flagged []string
	for _, c := range cells {
		r := rows[c.Subject]
		if r == nil {
			r = &scenarioRow{}
			rows[c.Subject] = r
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
			flagged = append(flagged, fmt.Sprintf("- beyond the fault: %s: %s — `%s` (%s)", c.Key(), ex, c.Command, c.Dir))
		case !c.OK && !c.Informational:
			r.missed++
			flagged = append(flagged, fmt.Sprintf("- not as expected (%s): %s: %s — `%s` (%s)", c.Expected, c.Key(), c.Why, c.Command, c.Dir))
		case c.Verdict == model.Invalid:
			r.allowed++
		default:
			r.valid++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Scenarios: as expected, and never beyond the fault\n\n`lockcheck nightly --scenarios S --subjects …` over the same seeds, on %d scenarios: %s. "+
		"A correct lock meets each scenario's expectation; where a fault breaks it (the unsafe scenarios, a pause that costs a hold: \"allowed by the fault\") "+
		"it never goes beyond what the fault allows. The targets are 0 beyond the fault and 0 not as expected.\n\n", len(scenarios), strings.Join(scenarios, ", "))
	b.WriteString("| subject | cells | valid | allowed by the fault | not as expected | beyond the fault | skipped | errors |\n|:--|--:|--:|--:|--:|--:|--:|--:|\n")
	beyond, missed := 0, 0
	for _, s := range slices.Sorted(maps.Keys(rows)) {
		r := rows[s]
		beyond, missed = beyond+r.beyond, missed+r.missed
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", s, r.cells, r.valid, r.allowed, r.missed, r.beyond, r.skipped, r.errors)
	}
	fmt.Fprintf(&b, "\nBeyond the fault in all: %d. Not as expected: %d.\n", beyond, missed)
	for _, line := range flagged {
		b.WriteString("\n" + line)
	}
	b.WriteString("\n")
	return b.String()
}

// The scenario half counts a cell beyond the fault apart from one the
// fault allows and one that missed its expectation, and lists the
// flagged ones with their commands.
func TestRenderScenarios(t *testing.T) {
	cells := []results.MatrixCell{
		{Scenario: "client-stall", Subject: "a", Seed: 1, Verdict: model.Invalid, OK: true},
		{Scenario: "client-stall", Subject: "a", Seed: 2, Verdict: model.Invalid, Beyond: true, Command: "lockcheck run x"},
		{Scenario: "no-faults", Subject: "a", Seed: 1, Verdict: model.Invalid, Expected: "valid", Why: "liveness", Command: "lockcheck run y"},
		{Scenario: "partition-long", Subject: "b", Seed: 1, Verdict: model.Valid, OK: true},
		{Scenario: "partition-long", Subject: "b", Seed: 2, Skip: "no", OK: true},
	}
	got := renderScenarios(cells, []string{"client-stall", "no-faults", "partition-long"})
	for _, want := range []string{"| a | 3 | 0 | 1 | 1 | 1 | 0 | 0 |", "| b | 2 | 1 | 0 | 0 | 0 | 1 | 0 |", "Beyond the fault in all: 1. Not as expected: 1.",
		"client-stall/a/2", "`lockcheck run x`", "not as expected (valid): no-faults/a/1: liveness — `lockcheck run y`"} {
		if !strings.Contains(got, want) {
			t.Errorf("the table lacks %q:\n%s", want, got)
		}
	}
}
