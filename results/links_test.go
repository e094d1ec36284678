package results

import (
	"errors"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheckLinksCatchesPlanted proves the checker can fail: a page with a
// planted broken link, a link out of the tree and a machine's path is
// reported on exactly those lines; links that resolve, URLs, anchors and
// links in code are not.
func TestCheckLinksCatchesPlanted(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"docs/a.md", "results/run/summary.md"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("# x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page := strings.Join([]string{
		"# page", // 1
		"[ok](../results/run/summary.md#x) [dir](../results/run)",         // 2
		"[planted](../results/run/history.html)",                          // 3: broken
		"[out](../../etc/passwd)",                                         // 4: outside
		"written from /work/sb/p1/matrix.json",                            // 5: machine path
		"[web](https://example.com/tmp/x) [top](#page) `[code](nope.md)`", // 6
		"```",               // 7
		"[fenced](nope.md)", // 8
		"```",               // 9
		`<a href="nope.html">x</a> <img src="a.md">`, // 10: href broken
	}, "\n")
	if err := os.WriteFile(filepath.Join(root, "docs/page.md"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, err := range CheckLinks(root, "docs/page.md", "docs") {
		kind := "broken"
		if errors.Is(err, ErrMachinePath) {
			kind = "machine"
		} else if !errors.Is(err, ErrBrokenLink) {
			t.Fatalf("unexpected error: %v", err)
		}
		line, _, _ := strings.Cut(strings.TrimPrefix(err.Error(), "docs/page.md:"), ":")
		got = append(got, kind+"@"+line)
	}
	slices.Sort(got)
	want := []string{"broken@10", "broken@3", "broken@4", "machine@5"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// fragments are committed pages that another page shows as they are: their
// links are written from that page's folder. None is left: table.md's
// links are its own folder's, and README.md shows it through ReadmeTable.
var fragments = map[string]string{}

// notYetStandalone are committed pages the link check skips. Each entry
// must say why and when it goes. None is left.
var notYetStandalone = map[string]string{}

// TestCommittedPagesStandAlone: every committed .md and .html under
// results/ and docs/ reads the same on any clone: each relative link
// resolves inside the repository and no page names a path of the machine
// that wrote it.
func TestCommittedPagesStandAlone(t *testing.T) {
	root := repoRootFromResults(t)
	pages := committedPages(t, root, "results", "docs")
	if len(pages) < 20 {
		t.Fatalf("only %d pages under results/ and docs/: is the walk broken?", len(pages))
	}
	checked := 0
	for _, p := range pages {
		if _, skip := notYetStandalone[p]; skip {
			t.Logf("skipped (allow-list): %s", p)
			continue
		}
		base, ok := fragments[p]
		if !ok {
			base = path.Dir(p)
		}
		for _, err := range CheckLinks(root, p, base) {
			t.Error(err)
		}
		checked++
	}
	t.Logf("%d pages checked", checked)
}

// committedPages lists the .md and .html files under dirs of root that git
// tracks (every such file when root is no git checkout).
func committedPages(t *testing.T, root string, dirs ...string) []string {
	t.Helper()
	var pages []string
	for _, f := range committedFiles(t, root, dirs...) {
		if strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".html") {
			pages = append(pages, f)
		}
	}
	return pages
}

// committedFiles lists the files under dirs of root that git tracks (every
// file there when root is no git checkout), relative to root with slashes.
func committedFiles(t *testing.T, root string, dirs ...string) []string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root, "ls-files", "--"}, dirs...)...).Output()
	if err == nil {
		return strings.Fields(string(out))
	}
	var files []string
	for _, d := range dirs {
		_ = filepath.WalkDir(filepath.Join(root, d), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, filepath.ToSlash(rel))
			}
			return err
		})
	}
	return files
}
