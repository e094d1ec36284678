package scenario

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/model"
)

// Every fault name a run can record is in model.FaultAllowances: a name
// it lacks makes the fault-allowance verdict unknown. Building a
// scenario's faults needs its world (a redis-server, proxies, Sentinels),
// so the names are read from the source that makes them instead: every
// fault faults builds (its fault{name: ...} literals), every faults.Func,
// faults.Chosen and helper that takes a fault's name (a parameter called
// name, of a function that returns a Fault), and every model.Fault the
// runners record, in faults/, workloads/ (the scenario catalog among
// them) and cmd/. A name made in a way the scan does not follow fails the
// test, to be taught to it.
func TestFaultNamesHaveAllowances(t *testing.T) {
	sc := scanFaultNames(t, "../../faults", "../../workloads", "../../cmd")
	for _, u := range sc.unresolved {
		t.Errorf("%s: a fault name the scan cannot follow: teach faultnames_test.go how it is made", u)
	}
	listed := map[string]bool{}
	for _, a := range model.FaultAllowances {
		for _, n := range a.Names {
			listed[n] = true
		}
	}
	for _, n := range slices.Sorted(maps.Keys(sc.names)) {
		if !listed[n] {
			t.Errorf("fault %q (made at %s) is not in model.FaultAllowances", n, sc.names[n])
		}
	}
	t.Logf("%d fault names made: %v", len(sc.names), slices.Sorted(maps.Keys(sc.names)))
	// The scan must see the names the runners and the catalog are known
	// to make, or it follows nothing.
	for _, n := range []string{"client-stall", "client-crash", "client-interrupt", "hiccup", "reconnect", "proxy-blackhole",
		"refuse-once", "slow-reply", "redis-client-pause-all", "redis-client-kill-pubsub", "sentinel-pause-master",
		"clock-drift", "client-kill-normal", "cluster-failover"} {
		if _, ok := sc.names[n]; !ok {
			t.Errorf("the scan did not find fault %q", n)
		}
	}
}

// namer is a function that takes a fault's name: the index of its name
// parameter, and how many parameters it has (functions are told apart by
// name and arity: faults.ClientPause and Admin.ClientPause are two).
type namer struct{ index, arity int }

// nameScan holds what scanFaultNames found: each fault name with where it
// is made, and the name expressions it could not follow.
type nameScan struct {
	files      []*ast.File
	fset       *token.FileSet
	consts     map[string]string          // string constants by name
	funcs      map[string][]*ast.FuncDecl // functions and methods by name
	namers     map[string]namer           // functions returning a Fault, by name
	names      map[string]string
	unresolved []string
}

// scanFaultNames parses the non-test Go files under dirs and collects the
// fault names they make.
func scanFaultNames(t *testing.T, dirs ...string) *nameScan {
	sc := &nameScan{fset: token.NewFileSet(), consts: map[string]string{}, funcs: map[string][]*ast.FuncDecl{},
		namers: map[string]namer{}, names: map[string]string{}}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(sc.fset, path, nil, 0)
			if err == nil {
				sc.files = append(sc.files, f)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range sc.files {
		sc.index(f)
	}
	for _, f := range sc.files {
		sc.collect(f)
	}
	return sc
}

// index records f's string constants, its functions, and those of them
// that take a fault's name (a string parameter called name) and return a
// Fault.
func (sc *nameScan) index(f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok || d.Tok != token.CONST {
					continue
				}
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							sc.consts[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		case *ast.FuncDecl:
			sc.funcs[d.Name.Name] = append(sc.funcs[d.Name.Name], d)
			if i := paramIndex(d, "name"); i >= 0 && returnsFault(d) {
				sc.namers[d.Name.Name] = namer{i, arity(d)}
			}
		}
	}
}

// paramIndex is the index of fn's parameter called name (-1: none).
func paramIndex(fn *ast.FuncDecl, name string) int {
	i := 0
	for _, field := range fn.Type.Params.List {
		for _, n := range field.Names {
			if n.Name == name {
				return i
			}
			i++
		}
		if len(field.Names) == 0 {
			i++
		}
	}
	return -1
}

func arity(fn *ast.FuncDecl) int {
	n := 0
	for _, field := range fn.Type.Params.List {
		n += max(1, len(field.Names))
	}
	return n
}

func returnsFault(fn *ast.FuncDecl) bool {
	if fn.Type.Results == nil {
		return false
	}
	for _, r := range fn.Type.Results.List {
		if strings.HasSuffix(typeName(r.Type), "Fault") {
			return true
		}
	}
	return false
}

func typeName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return typeName(x.X) + "." + x.Sel.Name
	case *ast.StarExpr:
		return typeName(x.X)
	}
	return ""
}

// collect finds the fault names made in f: fault{name: ...} and
// model.Fault{Name: ...} literals, and the name arguments of calls to the
// functions that take one.
func (sc *nameScan) collect(f *ast.File) {
	for _, decl := range f.Decls {
		fn, _ := decl.(*ast.FuncDecl)
		ast.Inspect(decl, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CompositeLit:
				switch typeName(x.Type) {
				case "fault":
					sc.field(x, "name", fn)
				case "model.Fault":
					sc.field(x, "Name", fn)
				}
			case *ast.CallExpr:
				if nm, ok := sc.namers[calleeName(x)]; ok && nm.arity == len(x.Args) {
					sc.add(x.Args[nm.index], fn)
				}
			}
			return true
		})
	}
}

func calleeName(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

func (sc *nameScan) field(lit *ast.CompositeLit, key string, fn *ast.FuncDecl) {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == key {
				sc.add(kv.Value, fn)
			}
		}
	}
}

// add records the names e (inside fn) may evaluate to.
func (sc *nameScan) add(e ast.Expr, fn *ast.FuncDecl) {
	names, ok := sc.resolve(e, fn, 0)
	if !ok {
		sc.unresolved = append(sc.unresolved, sc.fset.Position(e.Pos()).String())
		return
	}
	for _, n := range names {
		if _, seen := sc.names[n]; !seen {
			sc.names[n] = sc.fset.Position(e.Pos()).String()
		}
	}
}

// resolve returns the strings e (inside fn) may evaluate to. A parameter
// called name of a function that takes a fault's name passes one on (its
// callers are collected), and so does a field of a recorded window
// (w.Name: a name a fault gave); another parameter is followed to the
// calls of fn.
func (sc *nameScan) resolve(e ast.Expr, fn *ast.FuncDecl, depth int) ([]string, bool) {
	if depth > 4 {
		return nil, false
	}
	switch x := e.(type) {
	case *ast.BasicLit:
		s, err := strconv.Unquote(x.Value)
		return []string{s}, err == nil && x.Kind == token.STRING
	case *ast.ParenExpr:
		return sc.resolve(x.X, fn, depth)
	case *ast.Ident:
		if v, ok := sc.consts[x.Name]; ok {
			return []string{v}, true
		}
		if fn == nil {
			return nil, false
		}
		if nm, ok := sc.namers[fn.Name.Name]; ok && x.Name == "name" && nm.index == paramIndex(fn, "name") {
			return nil, true // passed on: its callers are collected
		}
		if i := paramIndex(fn, x.Name); i >= 0 {
			return sc.callArgs(fn.Name.Name, arity(fn), i, depth)
		}
	case *ast.SelectorExpr:
		if v, ok := sc.consts[x.Sel.Name]; ok {
			return []string{v}, true
		}
		if x.Sel.Name == "Name" {
			return nil, true // a recorded window's name: a fault gave it
		}
	case *ast.BinaryExpr:
		l, lok := sc.resolve(x.X, fn, depth+1)
		r, rok := sc.resolve(x.Y, fn, depth+1)
		var out []string
		for _, a := range l {
			for _, b := range r {
				out = append(out, a+b)
			}
		}
		return out, lok && rok && x.Op == token.ADD
	case *ast.CallExpr:
		if len(x.Args) != 1 {
			return nil, false
		}
		vs, ok := sc.resolve(x.Args[0], fn, depth+1)
		switch calleeName(x) {
		case "string":
			return vs, ok
		case "ToLower":
			for i := range vs {
				vs[i] = strings.ToLower(vs[i])
			}
			return vs, ok
		}
	}
	return nil, false
}

// callArgs resolves the i-th argument of every call to the function
// called name with nargs arguments, in the function that makes the call.
func (sc *nameScan) callArgs(name string, nargs, i, depth int) ([]string, bool) {
	var out []string
	ok, calls := true, 0
	for _, f := range sc.files {
		for _, decl := range f.Decls {
			caller, _ := decl.(*ast.FuncDecl)
			ast.Inspect(decl, func(n ast.Node) bool {
				call, isCall := n.(*ast.CallExpr)
				if !isCall || calleeName(call) != name || len(call.Args) != nargs {
					return true
				}
				calls++
				vs, good := sc.resolve(call.Args[i], caller, depth+1)
				out, ok = append(out, vs...), ok && good
				return true
			})
		}
	}
	return out, ok && calls > 0
}
