package results

import (
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The budget of the run data committed under results/ (see runData): the
// histories the pages' findings and tables link, their run directories,
// the scoreboards' reports and the benchmark track record. It was 11.1 MB
// on 2026-11-30 (8.4 MB of it results/scoreboard's, two servers × 24
// libraries, gzipped) and 12.6 MB on 2026-12-02, every file of it linked
// (the rediscovery parts keep the plan of each find, which its rerun
// command names); a page that needs more keeps fewer runs, or links a run
// directory that is not committed.
const (
	runDataBudget = 13 << 20
	// historyBudget bounds one committed history.jsonl (the largest, a
	// semaphore's client-stall-long-hold run, is 0.85 MB).
	historyBudget = 1 << 20
)

// codeFolders are the folders under results/ that hold the package's own
// files (sources, embedded assets), not run data.
var codeFolders = []string{"results/internal/", "results/plots/", "results/timeline/"}

// runData are the committed files under results/ that runs wrote: every
// file in a folder below results/ but the code's own (codeFolders) and Go
// sources. The pages and inputs directly in results/ are not run data.
func runData(t *testing.T, root string) []string {
	t.Helper()
	var data []string
	for _, f := range committedFiles(t, root, "results") {
		if path.Dir(f) == "results" || strings.HasSuffix(f, ".go") || strings.Contains(f, "/testdata/") ||
			slices.ContainsFunc(codeFolders, func(p string) bool { return strings.HasPrefix(f, p) }) {
			continue
		}
		data = append(data, f)
	}
	return data
}

// isHistory says f is a run's history, as written or kept gzipped.
func isHistory(f string) bool {
	return path.Base(f) == HistoryFile || path.Base(f) == HistoryFile+Gz
}

// TestCorpusWithinBudget: the committed run data stays within
// runDataBudget in all and historyBudget per history.
func TestCorpusWithinBudget(t *testing.T) {
	root := repoRootFromResults(t)
	var total int64
	histories := 0
	for _, f := range runData(t, root) {
		fi, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		total += fi.Size()
		if isHistory(f) {
			histories++
			if fi.Size() > historyBudget {
				t.Errorf("%s: %d bytes, more than the %d a committed history may hold: keep a shorter run", f, fi.Size(), historyBudget)
			}
		}
	}
	if histories == 0 {
		t.Fatal("no committed history: is the walk broken?")
	}
	if total > runDataBudget {
		t.Errorf("the committed run data under results/ holds %d bytes, more than its budget of %d: remove the runs no page links (git rm)", total, runDataBudget)
	}
	t.Logf("%d bytes of run data (budget %d), %d histories", total, runDataBudget, histories)
}

// TestCommittedRunDataIsLinked: every committed history's run directory,
// and every other file of run data, is linked from a page (a finding, a
// table, a report) other than its own run directory's, or named there by
// its path from the repository's root: run data no page shows is removed.
func TestCommittedRunDataIsLinked(t *testing.T) {
	root := repoRootFromResults(t)
	refs := pageReferences(t, root)
	runDirs := map[string]bool{}
	for _, f := range runData(t, root) {
		if isHistory(f) {
			runDirs[path.Dir(f)] = true
		}
	}
	for _, f := range runData(t, root) {
		what := f
		for d := path.Dir(f); d != "results"; d = path.Dir(d) {
			if runDirs[d] {
				what = d // a run directory is linked as a whole, or by one of its files
			}
		}
		if !referenced(refs, what) {
			t.Errorf("%s: no page links it (git rm it, or link it from the finding it shows)", what)
		}
	}
}

// pageRef is a path of the repository that a page links or names.
type pageRef struct{ page, target string }

// referenced reports whether a page outside what links what, a file or
// directory inside it, or a directory holding it.
func referenced(refs []pageRef, what string) bool {
	return slices.ContainsFunc(refs, func(r pageRef) bool {
		outside := !strings.HasPrefix(r.page, what+"/")
		return outside && (r.target == what || strings.HasPrefix(r.target, what+"/") || strings.HasPrefix(what, r.target+"/"))
	})
}

// rootPath is a path from the repository's root that a page names in its
// prose or code: `lockcheck check results/…`.
var rootPath = regexp.MustCompile(`\bresults/[A-Za-z0-9_.@+/-]*[A-Za-z0-9_@+-]`)

// pageReferences are the repository paths README.md and the pages under
// docs/ and results/ link (resolved from the page's folder) or name from
// the root.
func pageReferences(t *testing.T, root string) []pageRef {
	t.Helper()
	var refs []pageRef
	for _, p := range append(committedPages(t, root, "results", "docs"), "README.md") {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range pageLinks(p, string(b)) {
			target, _, _ := strings.Cut(l.target, "#")
			target, _, _ = strings.Cut(target, "?")
			if target == "" || strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
				continue
			}
			if u, err := url.PathUnescape(target); err == nil {
				refs = append(refs, pageRef{p, path.Join(path.Dir(p), u)})
			}
		}
		for _, m := range rootPath.FindAllString(string(b), -1) {
			refs = append(refs, pageRef{p, path.Clean(m)})
		}
	}
	return refs
}

// repoRootFromResults is the repository's root (the tests run in results/).
func repoRootFromResults(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLinkedRunDirectory: a run directory is linked by a link to it, to a file in
// it or to a folder holding it, from a page outside it; its own summary's
// links, and a sibling's, do not count.
func TestLinkedRunDirectory(t *testing.T) {
	const dir = "results/scoreboard/runs/no-faults/fair-1"
	for _, tc := range []struct {
		ref  pageRef
		want bool
	}{
		{pageRef{"results/scoreboard/README.md", dir}, true},
		{pageRef{"results/scoreboard/README.md", dir + "/summary.md"}, true},
		{pageRef{"docs/findings.md", "results/scoreboard/runs"}, true},
		{pageRef{dir + "/summary.md", dir + "/history.html"}, false},
		{pageRef{"results/scoreboard/README.md", dir + "-rerun-1"}, false},
		{pageRef{"results/scoreboard/README.md", "results/scoreboard/runs/no-faults/fair"}, false},
	} {
		if got := referenced([]pageRef{tc.ref}, dir); got != tc.want {
			t.Errorf("%+v: referenced %v, want %v", tc.ref, got, tc.want)
		}
	}
}
