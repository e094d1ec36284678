package model

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// model imports only porcupine and the standard library: a model that shares
// code with the implementation shares its bugs.
func TestImportsOnlyPorcupineAndStd(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range ast.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(path, "/")
			if path == "github.com/anishathalye/porcupine" || !strings.Contains(first, ".") {
				continue
			}
			t.Errorf("%s imports %q: model may import only porcupine and the standard library", f, path)
		}
	}
	if checked == 0 {
		t.Fatal("no source files found")
	}
}
