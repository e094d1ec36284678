package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// listWidth is the width every line of `lockcheck scenarios` fits in.
const listWidth = 100

// scenariosCmd is `lockcheck scenarios [NAME]`: a table of one line per
// scenario that fits listWidth columns, or, with a name, that scenario in
// detail (its description and the expectation of every reference subject,
// wrapped to listWidth).
func scenariosCmd(_ context.Context, e *env, args []string) (int, error) {
	fs := newFlags(e, "scenarios", "scenarios [NAME]",
		"  lockcheck scenarios\n  lockcheck scenarios client-stall\n  lockcheck run --scenario partition-short --subject fair\n")
	if err := parseFlags(fs, args, 1); err != nil {
		return exitUsage, err
	}
	if fs.NArg() == 1 {
		return scenarioDetail(e.stdout, fs.Arg(0))
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCENARIO\tKIND\tRUN\tWHAT HAPPENS")
	width := nameWidth(append(scenario.Catalog(), scenario.RemoteCatalog()...))
	// name, kind ("unsafe"), run ("14s") and three 2-space gaps.
	docWidth := listWidth - width - len("unsafe") - len("14s") - 3*2
	for _, sc := range scenario.Catalog() {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sc.Name, kindOf(sc), sc.Duration, truncate(sc.Doc, docWidth))
	}
	if err := tw.Flush(); err != nil {
		return exitUsage, err
	}
	fmt.Fprintln(e.stdout, "\nSemaphores and latches (run --subject redisson-semaphore ...) run under these, and must stay valid:")
	for _, l := range wrap(strings.Join(scenario.NamesOf(scenario.PermitsScenarios()), ", "), listWidth-2) {
		fmt.Fprintln(e.stdout, "  "+l)
	}
	fmt.Fprintln(e.stdout, "\nAgainst an existing deployment (run --redis URL | --sentinel ADDRS --master NAME |")
	fmt.Fprintln(e.stdout, "--cluster ADDRS, with --scenario NAME):")
	for _, sc := range scenario.RemoteCatalog() {
		fmt.Fprintf(e.stdout, "  %-*s  %s\n", width, sc.Name, truncate(sc.Doc, listWidth-width-4))
	}
	fmt.Fprintln(e.stdout, "\nThe expected verdict of each subject and the whole description: lockcheck scenarios NAME")
	return exitValid, nil
}

// scenarioDetail prints one scenario, local or remote, wrapped to listWidth.
func scenarioDetail(w io.Writer, name string) (int, error) {
	sc, err := scenario.Lookup(name)
	remote := false
	if err != nil {
		for _, r := range scenario.RemoteCatalog() {
			if r.Name == name {
				sc, err, remote = r, nil, true
			}
		}
	}
	if err != nil {
		return exitUsage, usagef("%v (see 'lockcheck scenarios')", err)
	}
	fmt.Fprintf(w, "%s: %s scenario, %s per run", sc.Name, kindOf(sc), sc.Duration)
	if remote {
		fmt.Fprint(w, ", against an existing deployment")
	}
	fmt.Fprintln(w)
	for _, l := range wrap(sc.Doc, listWidth-2) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "\nExpected, per reference subject:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range splitList(referenceSubjects + ",fair-wait") {
		s, err := catalog.Subjects.Lookup(n)
		if err != nil {
			continue
		}
		exp := sc.Expectation(s)
		label := exp.Label
		if exp.Skip != "" {
			label = "skipped: " + exp.Skip
		}
		fmt.Fprintf(tw, "  %s\t%s\n", n, truncate(label, listWidth-20))
	}
	if err := tw.Flush(); err != nil {
		return exitUsage, err
	}
	fmt.Fprintf(w, "\nRun it: lockcheck run --scenario %s --subject fair\n", sc.Name)
	if sc.Permits {
		fmt.Fprintf(w, "Semaphores and latches too (they must stay valid):\n  lockcheck run --scenario %s --subject semaphore\n", sc.Name)
	}
	return exitValid, nil
}

func kindOf(sc scenario.Scenario) string {
	if sc.Safe {
		return "safe"
	}
	return "unsafe"
}

func nameWidth(scs []scenario.Scenario) int {
	n := 0
	for _, sc := range scs {
		n = max(n, utf8.RuneCountInString(sc.Name))
	}
	return n
}

// truncate cuts s to at most n runes, ending it with "…" when cut.
func truncate(s string, n int) string {
	if n < 1 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ,;:") + "…"
}

// wrap splits s into lines of at most n runes at spaces (a word longer than
// n gets a line of its own).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) <= n:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
