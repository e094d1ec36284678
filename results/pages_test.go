package results

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A page under results/ states where things stand: it opens with its
// current result, a table whose date and commit come before it; earlier
// results live in results/log/ under their date and commit, and in git
// history. No page names a round by a label (a letter, a session, "this
// round"): a reader has only the date and the commit to go by.

// roundLabel matches a round named other than by its date and commit.
var roundLabel = regexp.MustCompile(`(?i)\bsessions?\b|\b(?:this|that|the previous|previous|an earlier|the last) round\b|\bround [a-z]\b|(?m)^#+ .*\((?:[a-z]|\d+)\)\s*$`)

// What a page states with its first table, and how a log heads a result.
var (
	pageDate   = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)
	pageCommit = regexp.MustCompile(`\bcommit [0-9a-f]{7,40}\b`)
	// logHeading is how a log names each earlier result.
	logHeading = regexp.MustCompile(`^## 20\d\d-\d\d-\d\d, commit [0-9a-f]{7,40}: \S`)
)

// notAStatePage are the pages under results/ that do not state a date and
// a commit with their first table, each with why, first match first. Each
// entry goes once its reason does.
var notAStatePage = []struct{ pattern, why string }{
	{"results/bench/README.md", "the index of results/bench/'s files, each of which states its own result"},
	{"results/bench/*.md", "written by lockcheck bench before it stated its commit (Machine.Commit): its next run does"},
	{"results/bench/*/*.md", "written by lockcheck bench before it stated its commit (Machine.Commit): its next run does"},
}

// labelsAllowed are the pages the round-label scan skips, each with why.
var labelsAllowed = []struct{ pattern, why string }{}

// firstMatch returns the reason of the first entry whose pattern p matches.
func firstMatch(list []struct{ pattern, why string }, p string) (string, bool) {
	for _, e := range list {
		if ok, _ := path.Match(e.pattern, p); ok {
			return e.why, true
		}
	}
	return "", false
}

// resultPages are the committed pages under results/ that are not a run
// directory's own (its summary.md) and not a log.
func resultPages(t *testing.T, root string) []string {
	t.Helper()
	var pages []string
	for _, p := range committedPages(t, root, "results") {
		if !strings.HasSuffix(p, ".md") || strings.HasPrefix(p, "results/log/") {
			continue
		}
		if keptName(filepath.Join(root, path.Dir(p)), HistoryFile) != "" {
			continue // a run directory's summary (its history gzipped on a page)
		}
		pages = append(pages, p)
	}
	return pages
}

// TestPagesNameNoRounds: no committed page under results/ (logs and run
// summaries included) names a round by a label.
func TestPagesNameNoRounds(t *testing.T) {
	root := repoRootFromResults(t)
	for _, p := range committedPages(t, root, "results") {
		if !strings.HasSuffix(p, ".md") {
			continue
		}
		if why, ok := firstMatch(labelsAllowed, p); ok {
			t.Logf("skipped: %s: %s", p, why)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range roundLabel.FindAllStringIndex(string(b), -1) {
			t.Errorf("%s:%d: %q names a round by a label: name it by its date and commit", p, lineOf(string(b), m[0]), string(b)[m[0]:m[1]])
		}
	}
}

// TestPagesStateTheirResult: each page under results/ opens with its
// current result: a table, with a date and a commit before it or in the
// paragraph after it.
func TestPagesStateTheirResult(t *testing.T) {
	root := repoRootFromResults(t)
	pages := resultPages(t, root)
	if len(pages) < 5 {
		t.Fatalf("only %d pages: is the walk broken?", len(pages))
	}
	for _, p := range pages {
		if why, ok := firstMatch(notAStatePage, p); ok {
			t.Logf("not checked: %s: %s", p, why)
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		if err := stateOf(string(b)); err != "" {
			t.Errorf("%s: %s", p, err)
		}
	}
}

// stateOf says what a page lacks at its start ("" when nothing): a table,
// and a date and a commit before it or in the paragraph that follows it.
func stateOf(page string) string {
	table := regexp.MustCompile(`(?m)^\|.*\|[ \t]*\n(?:\|.*\|[ \t]*(?:\n|$))*`).FindStringIndex(page)
	if table == nil {
		return "no table: a page opens with its current result"
	}
	after := strings.TrimLeft(page[table[1]:], "\n")
	after, _, _ = strings.Cut(after, "\n\n")
	stated := page[:table[0]] + after
	switch {
	case !pageDate.MatchString(stated):
		return "no date (YYYY-MM-DD) with its first table"
	case !pageCommit.MatchString(stated):
		return `no commit ("commit abc1234") with its first table`
	}
	return ""
}

// TestPageLogsNameRoundsByDateAndCommit: every earlier result in results/log/
// is headed by its date and commit, and each log and its page link each
// other.
func TestPageLogsNameRoundsByDateAndCommit(t *testing.T) {
	root := repoRootFromResults(t)
	logs := 0
	for _, p := range committedPages(t, root, "results/log") {
		logs++
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		n := 0
		for i, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "## ") {
				n++
				if !logHeading.MatchString(l) {
					t.Errorf("%s:%d: %q: want \"## YYYY-MM-DD, commit abc1234: what\"", p, i+1, l)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no earlier result", p)
		}
		page := "results/" + path.Base(p)
		pb, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: no page %s beside the log: %v", p, page, err)
			continue
		}
		if !strings.Contains(text, "](../"+path.Base(p)+")") || !strings.Contains(string(pb), "](log/"+path.Base(p)+")") {
			t.Errorf("%s and %s do not link each other", p, page)
		}
	}
	if logs == 0 {
		t.Fatal("no log under results/log/")
	}
}

// TestPageChecksCatchPlanted proves the page checks can fail: labelled
// rounds are found, dated ones are not; a page without a table, a date or
// a commit before it is reported.
func TestPageChecksCatchPlanted(t *testing.T) {
	for _, tc := range []struct {
		text    string
		labeled bool
	}{
		{"## Round g: fresh seeds", true},
		{"measured in session 4", true},
		{"## The subscription triggers (h)", true},
		{"not traced this round; no claim", true},
		{"## 2026-11-26, commit 6a902b7: fresh seeds", false},
		{"5 interleaved rounds of 1s (subject order rotated each round)", false},
		{"the waiters of rounds 0 and 1", false},
	} {
		if got := roundLabel.MatchString(tc.text); got != tc.labeled {
			t.Errorf("%q: labelled %v, want %v", tc.text, got, tc.labeled)
		}
	}
	table := "| a |\n|--|\n| 1 |\n"
	for _, tc := range []struct{ page, want string }{
		{"# P\n\nMeasured 2026-11-26 at commit 6a902b7.\n\n" + table, ""},
		{"# P\n\nno table\n", "no table"},
		{"# P\n\nMeasured at commit 6a902b7.\n\n" + table, "no date"},
		{"# P\n\n" + table + "\nMeasured 2026-11-26 at commit 6a902b7.\n", ""},
		{"# P\n\nMeasured 2026-11-26.\n\n" + table + "\nmore\n\ncommit 6a902b7\n", "no commit"},
	} {
		if got := stateOf(tc.page); !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%q: %q, want %q", tc.page, got, tc.want)
		}
	}
}
