package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// allowedInits are the init functions a library package may keep, by file
// (module-relative), each with its reason: one may only compute package
// constants, never register, install or configure anything. None today:
// assemble wires the binary.
var allowedInits = map[string]string{}

// hiddenInits returns "file:line" of each init function of f, and of each
// package-level blank variable set by calling a function literal (an init
// by another name); an init method does not count.
func hiddenInits(fset *token.FileSet, f *ast.File) []string {
	var at []token.Pos
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil {
				at = append(at, d.Pos())
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if v, ok := s.(*ast.ValueSpec); ok && callsFuncLit(v) {
					at = append(at, v.Pos())
				}
			}
		}
	}
	var out []string
	for _, p := range at {
		pos := fset.Position(p)
		out = append(out, fmt.Sprintf("%s:%d", pos.Filename, pos.Line))
	}
	return out
}

// callsFuncLit says whether v sets a blank name to a function literal's
// result: var _ = func() bool { ...; return true }().
func callsFuncLit(v *ast.ValueSpec) bool {
	for i, n := range v.Names {
		if n.Name != "_" || i >= len(v.Values) {
			continue
		}
		if c, ok := v.Values[i].(*ast.CallExpr); ok {
			if _, lit := c.Fun.(*ast.FuncLit); lit {
				return true
			}
		}
	}
	return false
}

// libraryFiles returns the module-relative paths of the non-test Go files
// of every package of the module that is not a command (go list: files
// excluded by build constraints included).
func libraryFiles(t *testing.T, root string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	format := "{{.Name}}|{{.Dir}}|{{join .GoFiles \" \"}} {{join .CgoFiles \" \"}} {{join .IgnoredGoFiles \" \"}}"
	out, err := exec.CommandContext(ctx, "go", "list", "-f", format, module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var files []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 || f[0] == "main" {
			continue
		}
		for _, name := range strings.Fields(f[2]) {
			rel, err := filepath.Rel(root, filepath.Join(f[1], name))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	return files
}

// TestNoInitPlugins: no library package has an init function (or a blank
// variable standing for one) beyond allowedInits. What a binary has is
// wired by assemble, explicitly: a plug-in that registered itself on
// import would make a run directory's plots, links or subjects depend on
// which packages the binary happened to import.
func TestNoInitPlugins(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := libraryFiles(t, root)
	if len(files) < 100 {
		t.Fatalf("only %d library files listed: the listing is wrong", len(files))
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, rel := range files {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, at := range hiddenInits(fset, f) {
			if _, ok := allowedInits[rel]; ok {
				seen[rel] = true
				continue
			}
			at, _ = filepath.Rel(root, at)
			t.Errorf("%s: an init in a library package; export a Register or a value and wire it in cmd/lockcheck's assemble", at)
		}
	}
	for rel := range allowedInits {
		if !seen[rel] {
			t.Errorf("allowedInits lists %s, which has no init: remove it", rel)
		}
	}
}

// TestHiddenInitsCatch: the check above flags an init function and a blank
// variable set by a function literal, and nothing else.
func TestHiddenInitsCatch(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"package p\nfunc init() { results.RegisterPlots(nil, nil) }", 1},
		{"package p\nvar _ = func() bool { faults.RegisterLocalLink(nil); return true }()", 1},
		{"package p\nvar a, _ = 1, func() int { return 2 }()", 1},
		{"package p\nfunc init() {}\nfunc init() {}", 2},
		{"package p\ntype T struct{}\nfunc (T) init() {}", 0},
		{"package p\nvar _ error = (*E)(nil)", 0},
		{"package p\nvar x = func() int { return 1 }()", 0},
		{"package p\nfunc initialise() {}", 0},
	} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", tc.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := hiddenInits(fset, f); len(got) != tc.want {
			t.Errorf("%q: flagged %v, want %d", tc.src, got, tc.want)
		}
	}
}
