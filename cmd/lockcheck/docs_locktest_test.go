package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/results"
)

// TestReadmeLocktestIsTheModulesTest: the go block of README.md's "Use it
// from go test" is, verbatim, a test of the user module that make test runs
// (workloads/locktest/testdata/userlock), so the few lines a newcomer copies
// are known to compile and pass.
func TestReadmeLocktestIsTheModulesTest(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)## Use it from `go test`\n\n```go\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no go block under \"Use it from `go test`\"")
	}
	src, err := os.ReadFile(filepath.Join(root, "workloads/locktest/testdata/userlock/userlock_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), string(m[1])) {
		t.Fatalf("README.md's locktest example is not in userlock_test.go as it is:\n%s", m[1])
	}
	if n := strings.Count(strings.TrimSpace(string(m[1])), "\n") + 1; n > 10 {
		t.Errorf("README.md's locktest example has %d lines, more than 10", n)
	}
}

// TestReadmeScoreboardIsThePages: README.md's Scoreboard section shows
// results/scoreboard/table.md as `lockcheck scoreboard render` last wrote it
// (its links made to reach the page from the root: results.ReadmeTable), so
// the table on the front door is the committed page's.
func TestReadmeScoreboardIsThePages(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table, err := os.ReadFile(filepath.Join(root, "results/scoreboard/table.md"))
	if err != nil {
		t.Fatal(err)
	}
	body := results.ReadmeTable(string(table), "results/scoreboard")
	if !strings.Contains(string(readme), body) {
		t.Fatal("README.md does not show results/scoreboard/table.md as it is: paste it under ## Scoreboard")
	}
}
