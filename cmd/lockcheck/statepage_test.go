package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A results page states where things stand: its head (title, how it was
// measured — date and commit — and its table) and its "## " sections. A
// measuring test (make catch-rates, make fp-campaign) rewrites the parts
// it measures with writeStatePage, which moves what they said before to
// the page's log, results/log/<page>.md, under that measurement's date and
// commit: no earlier result leaves the pages but into git history.

// pageSection is one "## " section of a page: its heading line and text.
type pageSection struct{ heading, text string }

// splitPage splits a page into its head (everything before the first "## "
// heading) and its sections.
func splitPage(page string) (string, []pageSection) {
	parts := regexp.MustCompile(`(?m)^## `).Split(page, -1)
	var secs []pageSection
	for _, p := range parts[1:] {
		heading, text, _ := strings.Cut(p, "\n")
		secs = append(secs, pageSection{"## " + heading, text})
	}
	return parts[0], secs
}

// measuredAt matches how a head states its measurement: "measured
// 2026-11-26 at commit 6a902b7".
var measuredAt = regexp.MustCompile(`(\d{4}-\d{2}-\d{2}) at commit ([0-9a-f]{7,40})`)

// writeStatePage writes out, a tool's page, to dest: out's head and
// sections, then the sections of the page at dest that out does not
// rewrite. What out replaces (the old head, and each old section of a
// heading out has) is appended to logPath under the date and commit its
// head states (else dest's last commit), its links made to reach from
// there.
func writeStatePage(dest, logPath, out string) error {
	old, err := os.ReadFile(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return os.WriteFile(dest, []byte(out), 0o644)
	}
	if err != nil {
		return err
	}
	oldHead, oldSecs := splitPage(string(old))
	_, newSecs := splitPage(out)
	rewritten := func(s pageSection) bool {
		return slices.ContainsFunc(newSecs, func(n pageSection) bool { return n.heading == s.heading })
	}
	page, replaced := strings.TrimRight(out, "\n")+"\n", oldHead
	for _, s := range oldSecs {
		if rewritten(s) {
			replaced += "#" + s.heading + "\n" + s.text
		} else {
			page += "\n" + s.heading + "\n" + s.text
		}
	}
	if err := appendToLog(dest, logPath, replaced); err != nil {
		return err
	}
	return os.WriteFile(dest, []byte(page), 0o644)
}

// appendToLog appends head, a page's replaced part, to logPath as one
// measurement: "## DATE, commit C: TITLE" and its text without the title,
// its relative links rebased from dest's folder to the log's.
func appendToLog(dest, logPath, head string) error {
	title, body, _ := strings.Cut(head, "\n")
	title = strings.TrimPrefix(title, "# ")
	date, commit, err := measurement(dest, head)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(filepath.Dir(logPath), filepath.Dir(dest))
	if err != nil {
		return err
	}
	body = rebaseLinks(body, filepath.ToSlash(rel))
	entry := fmt.Sprintf("\n## %s, commit %s: %s\n%s", date, commit, title, strings.TrimRight(body, "\n")+"\n")
	if _, err := os.Stat(logPath); errors.Is(err, fs.ErrNotExist) {
		entry = fmt.Sprintf("# %s: earlier measurements\n\nOldest first, each under the date it was measured and its commit; the current result: [%s](%s/%s).\n",
			strings.TrimSuffix(filepath.Base(dest), ".md"), filepath.Base(dest), filepath.ToSlash(rel), filepath.Base(dest)) + entry
	}
	if err := os.MkdirAll(filepath.Dir(logPath), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(entry)
	return errors.Join(err, f.Close())
}

// measurement is the date and commit head states, else those of the last
// commit of dest.
func measurement(dest, head string) (string, string, error) {
	if m := measuredAt.FindStringSubmatch(head); m != nil {
		return m[1], m[2], nil
	}
	out, err := exec.Command("git", "-C", filepath.Dir(dest), "log", "-1", "--date=short", "--format=%ad %h", "--", filepath.Base(dest)).Output()
	date, commit, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if err != nil || !ok {
		return "", "", fmt.Errorf("%s states no measured date and commit, and git has none: %v", dest, err)
	}
	return date, commit, nil
}

// mdTarget matches a Markdown link's target.
var mdTarget = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// rebaseLinks prefixes base to text's relative link targets.
func rebaseLinks(text, base string) string {
	return mdTarget.ReplaceAllStringFunc(text, func(m string) string {
		target := m[2 : len(m)-1]
		if strings.Contains(target, ":") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "/") {
			return m
		}
		return "](" + base + "/" + target + ")"
	})
}

// headCommit is the short commit the working tree is at: what a
// measurement ran.
func headCommit(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// startHead is HEAD when this test binary started, the commit its code
// is from: a campaign runs for hours while the tree moves on ("" when git
// could not say).
var startHead = func() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}()

// measuredLine is how a tool's head says when and at which commit it
// measured: "measured 2026-11-26 at commit 6a902b7", the commit the test
// binary started at.
func measuredLine(t *testing.T) string {
	head := startHead
	if head == "" {
		head = headCommit(t)
	}
	return fmt.Sprintf("measured %s at commit %s", time.Now().UTC().Format(time.DateOnly), head)
}

// TestStatePageKeepsEarlierInLog: a rewrite keeps the page's other
// sections and moves the head and sections it replaces to the log, under
// their date and commit, links rebased; a second rewrite appends.
func TestStatePageKeepsEarlierInLog(t *testing.T) {
	dir := t.TempDir()
	dest, logPath := filepath.Join(dir, "rates.md"), filepath.Join(dir, "log", "rates.md")
	old := "# Rates\n\nSeeds 1..5; measured 2026-11-20 at commit abc1234.\n\n| a |\n|--|\n| 1 |\n\n" +
		"## Unsafe\n\nold unsafe [x](findings/x)\n\n## Semaphores\n\nkept by hand\n"
	if err := os.WriteFile(dest, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	out := "# Rates\n\nSeeds 1..5; measured 2026-11-29 at commit def5678.\n\n| a |\n|--|\n| 2 |\n\n## Unsafe\n\nnew unsafe\n"
	if err := writeStatePage(dest, logPath, out); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(dest)
	if want := out + "\n## Semaphores\n\nkept by hand\n"; string(page) != want {
		t.Errorf("page:\n%s\nwant:\n%s", page, want)
	}
	logText, _ := os.ReadFile(logPath)
	for _, want := range []string{"[rates.md](../rates.md)", "\n## 2026-11-20, commit abc1234: Rates\n", "| 1 |", "### Unsafe", "old unsafe [x](../findings/x)"} {
		if !strings.Contains(string(logText), want) {
			t.Errorf("the log lacks %q:\n%s", want, logText)
		}
	}
	if strings.Contains(string(logText), "kept by hand") || strings.Contains(string(logText), "new unsafe") {
		t.Errorf("the log holds what the page keeps:\n%s", logText)
	}
	if err := writeStatePage(dest, logPath, out); err != nil {
		t.Fatal(err)
	}
	logText, _ = os.ReadFile(logPath)
	if !strings.Contains(string(logText), "\n## 2026-11-29, commit def5678: Rates\n") || strings.Count(string(logText), "\n# ") != 0 {
		t.Errorf("the second rewrite is not appended as one measurement:\n%s", logText)
	}
}
