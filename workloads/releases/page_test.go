package releases

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/subject"
)

// pageStamp reads the date and commit a page says it was made at.
var pageStamp = regexp.MustCompile(`on (\d{4}-\d{2}-\d{2}) at commit (\S+), from`)

// Pages are the libraries whose page is committed (results/releases/LIB.md).
var Pages = []string{"redisson", "spring-lock-pubsub", "redsync", "python-redis-lock", "node-redisson"}

// TestCommittedPagesAreCurrent renders each committed page again from the
// committed catalog, release lists and hunts (no network: every list is
// cached), with the page's own date and commit, and wants the same bytes.
func TestCommittedPagesAreCurrent(t *testing.T) {
	cfg := Config{Dir: "../../results/releases", Catalog: "../../results/known-bugs.json"}
	for _, lib := range Pages {
		page, err := os.ReadFile(cfg.Dir + "/" + lib + ".md")
		if err != nil {
			t.Errorf("%s: %v", lib, err)
			continue
		}
		m := pageStamp.FindSubmatch(page)
		if m == nil || len(m[1]) == 0 {
			t.Errorf("%s: the page names no date and commit", lib)
			continue
		}
		if _, ok, err := LoadList(cfg.Dir, lib); !ok || err != nil {
			t.Errorf("%s: no cached release list (%v): the test would ask the registry", lib, err)
			continue
		}
		l, err := LookupLibrary(context.Background(), lib)
		if err != nil {
			t.Fatal(err)
		}
		if l.Versions.Pinned == "" {
			l.Versions = linkedPin(t, *l.Versions)
		}
		tab, err := cfg.TableOf(context.Background(), l)
		if err != nil {
			t.Fatalf("%s: %v", lib, err)
		}
		var buf bytes.Buffer
		if err := WritePage(&buf, tab, Stamp{Date: string(m[1]), Commit: string(m[2])}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), page) {
			t.Errorf("%s: results/releases/%s.md is not what lockcheck releases %s --md renders from the committed catalog and caches (make release-pages); first difference:\n%s", lib, lib, lib, firstDiff(page, buf.Bytes()))
		}
	}
}

// firstDiff is the first line where got differs from want, both shown.
func firstDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d\ncommitted: %s\nrendered:  %s", i+1, a, b)
		}
	}
	return "none"
}

// linkedPin is vs pinned at the release go.mod requires of its module (a
// Go peer's pin is the release linked, which a test binary's build info
// does not carry): the last word of vs.Registry.
func linkedPin(t *testing.T, vs subject.Versions) *subject.Versions {
	t.Helper()
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(vs.Registry)
	module := fields[len(fields)-1]
	m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + `\s+(\S+)`).FindSubmatch(gomod)
	if m == nil {
		t.Fatalf("go.mod requires no %s", module)
	}
	vs.Pinned = string(m[1])
	return &vs
}
