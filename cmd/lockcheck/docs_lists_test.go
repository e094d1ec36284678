package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// The docs' lists of what the code has, each checked against the code by
// the tests below so that neither can drift from the other.

// lockContract are impl/locker.go's interfaces every lock implements; the
// file's other exported interfaces are the optional capabilities.
var lockContract = []string{"Locker", "Maker"}

// TestDocListsLockCapabilities: docs/go.md's "Optional capabilities" list
// is impl/locker.go's optional interfaces, each once.
func TestDocListsLockCapabilities(t *testing.T) {
	root := repoRoot(t)
	var code []string
	for _, name := range exportedInterfaces(t, filepath.Join(root, "impl", "locker.go")) {
		if !slices.Contains(lockContract, name) {
			code = append(code, name)
		}
	}
	docs := bulletNames(section(t, root, "docs/go.md", "## Optional capabilities"))
	for _, err := range compareLists("docs/go.md's optional capabilities", docs, "impl/locker.go", code) {
		t.Error(err)
	}
}

// TestDocListsDriverCapabilities: docs/drivers.md names every capability a
// driver's banner can announce (impl/driver's Cap constants).
func TestDocListsDriverCapabilities(t *testing.T) {
	root := repoRoot(t)
	caps := capConstants(t, filepath.Join(root, "impl", "driver"))
	if len(caps) < 10 {
		t.Fatalf("only %d Cap constants in impl/driver: is the parse broken?", len(caps))
	}
	page := readPage(t, root, "docs/drivers.md")
	for _, c := range caps {
		if !strings.Contains(page, "`"+c+"`") {
			t.Errorf("docs/drivers.md does not name the driver capability `%s`", c)
		}
	}
}

// TestDocListsScenarios: docs/scenarios.md's catalog table has one row per
// scenario of workloads/scenario's catalog, with its kind (safe or unsafe),
// and the page names every remote-* scenario.
func TestDocListsScenarios(t *testing.T) {
	root := repoRoot(t)
	var code []string
	for _, sc := range scenario.Catalog() {
		kind := "unsafe"
		if sc.Safe {
			kind = "safe"
		}
		code = append(code, sc.Name+" "+kind)
	}
	var docs []string
	for _, m := range catalogRow.FindAllStringSubmatch(section(t, root, "docs/scenarios.md", "## The catalog"), -1) {
		docs = append(docs, m[1]+" "+m[2])
	}
	for _, err := range compareLists("docs/scenarios.md's catalog", docs, "scenario.Catalog()", code) {
		t.Error(err)
	}
	page := readPage(t, root, "docs/scenarios.md")
	for _, name := range scenario.RemoteNames() {
		if !strings.Contains(page, "`"+name+"`") {
			t.Errorf("docs/scenarios.md does not name the remote scenario `%s`", name)
		}
	}
}

// catalogRow is a row of docs/scenarios.md's catalog: | `name` | kind | … |.
var catalogRow = regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| (safe|unsafe) \\|")

// TestDocListsFlags: every flag of every command (its --help) is named as
// --flag in README.md or a docs/ page.
func TestDocListsFlags(t *testing.T) {
	dc := newDocChecker(t)
	var text strings.Builder
	for _, f := range docFiles(t, dc.root) {
		text.WriteString(readPage(t, dc.root, f))
	}
	n := 0
	for _, c := range commands() {
		flags, err := dc.commandFlags(c.name)
		if err != nil {
			t.Fatal(err)
		}
		for f := range flags {
			if f == "help" || f == "h" {
				continue
			}
			n++
			if !regexp.MustCompile(`--` + regexp.QuoteMeta(f) + `\b`).MatchString(text.String()) {
				t.Errorf("lockcheck %s --%s: no doc names it (README.md, docs/*.md)", c.name, f)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d flags: is the --help parse broken?", n)
	}
}

// readmeFlags are the run flags that are capabilities of their own: each
// has its line in README.md's "What it does".
var readmeFlags = []string{"subject", "plan", "threads-per-process", "call-forms", "scenario", "driver", "server", "backend", "redis"}

// TestReadmeCapabilities: README.md's "What it does" is one line per
// capability; it names every command and every flag of readmeFlags.
func TestReadmeCapabilities(t *testing.T) {
	dc := newDocChecker(t)
	list := section(t, dc.root, "README.md", "## What it does")
	var lines []string
	for _, l := range strings.Split(list, "\n") {
		if strings.HasPrefix(l, "- ") {
			lines = append(lines, l)
		} else if strings.HasPrefix(l, "  ") {
			t.Errorf("README.md's What it does: a capability on more than one line: %q", l)
		}
	}
	named := func(s string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, s) })
	}
	for _, c := range commands() {
		if !named("`lockcheck "+c.name) && !named("`"+c.name+"`") {
			t.Errorf("README.md's What it does has no line for lockcheck %s", c.name)
		}
	}
	runFlags, err := dc.commandFlags("run")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range readmeFlags {
		if !runFlags[f] {
			t.Errorf("readmeFlags names --%s, which lockcheck run does not have", f)
		}
		if !named("--" + f) {
			t.Errorf("README.md's What it does has no line for --%s", f)
		}
	}
}

// TestDocListCheckerCatchesDrift proves the list checks can fail: a doc
// list missing one of the code's names and naming one the code lacks is
// reported twice; bullets are read by their first code span.
func TestDocListCheckerCatchesDrift(t *testing.T) {
	docs := bulletNames("- `Fenced` — tokens\n- `Gone` — removed\ntext `NotABullet`\n")
	if !slices.Equal(docs, []string{"Fenced", "Gone"}) {
		t.Fatalf("bullets %v", docs)
	}
	errs := compareLists("doc", docs, "code", []string{"Fenced", "Sided"})
	if len(errs) != 2 {
		t.Errorf("errors %v, want one for Gone and one for Sided", errs)
	}
	if errs := compareLists("doc", []string{"A", "B"}, "code", []string{"B", "A"}); len(errs) != 0 {
		t.Errorf("the same names in another order: %v", errs)
	}
}

// compareLists reports each name of code missing from docs, and each name
// of docs that code lacks or that docs repeats.
func compareLists(docName string, docs []string, codeName string, code []string) []error {
	var errs []error
	for _, c := range code {
		if !slices.Contains(docs, c) {
			errs = append(errs, fmt.Errorf("%s lacks %q, which %s has", docName, c, codeName))
		}
	}
	for i, d := range docs {
		switch {
		case !slices.Contains(code, d):
			errs = append(errs, fmt.Errorf("%s names %q, which %s lacks", docName, d, codeName))
		case slices.Contains(docs[:i], d):
			errs = append(errs, fmt.Errorf("%s names %q twice", docName, d))
		}
	}
	return errs
}

// bulletName is a list item's first code span: "- `Fenced` — …".
var bulletName = regexp.MustCompile("(?m)^- `([^`]+)`")

// bulletNames are the first code spans of text's list items, in order.
func bulletNames(text string) []string {
	var names []string
	for _, m := range bulletName.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}

// section is the text of file's section under heading, up to the next
// heading of the same or a higher level.
func section(t *testing.T, root, file, heading string) string {
	t.Helper()
	page := readPage(t, root, file)
	i := strings.Index(page, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s has no heading %q", file, heading)
	}
	body := page[i+len(heading)+2:]
	level := strings.SplitN(heading, " ", 2)[0]
	for _, l := range regexp.MustCompile(`(?m)^#+ `).FindAllStringIndex(body, -1) {
		if l[1]-l[0]-1 <= len(level) {
			return body[:l[0]]
		}
	}
	return body
}

func readPage(t *testing.T, root, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exportedInterfaces are the exported interface types the Go file declares.
func exportedInterfaces(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			if _, ok := ts.Type.(*ast.InterfaceType); ok && ts.Name.IsExported() {
				names = append(names, ts.Name.Name)
			}
		}
	}
	return names
}

// capConstants are the values of the Cap* string constants of the package
// in dir: the capabilities a driver's banner can announce.
func capConstants(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var caps []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Cap") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					caps = append(caps, v)
				}
			}
			return true
		})
	}
	return caps
}
