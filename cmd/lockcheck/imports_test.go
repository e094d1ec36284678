package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const module = "github.com/lockcheck/lockcheck"

// importRule says which packages the packages From matches must not depend
// on, directly or through others. From is module-relative: "x" is package x,
// "x/..." is x and every package below it. Only, if set, lists the only
// non-standard packages they may depend on.
type importRule struct {
	From   string
	Not    []string // package path prefixes, module-relative
	Only   []string // full import paths (prefixes); nil: no such limit
	Reason string
}

// importRules are the import directions README.md and DESIGN.md state.
var importRules = []importRule{
	{From: "model/...", Only: []string{"github.com/anishathalye/porcupine"},
		Reason: "model imports only porcupine and the standard library: a model that shares code with the implementation shares its bugs"},
	{From: "impl/...", Not: []string{"model", "faults", "workloads", "results", "cmd"},
		Reason: "impl (and impl/peers, impl/mutants, impl/driver) never imports the harness"},
	{From: "faults/...", Not: []string{"impl", "model", "workloads", "results", "cmd"},
		Reason: "faults imports neither impl nor model: it reports fault windows through a callback and acts on clients through a small interface"},
	{From: "results/...", Not: []string{"impl", "faults", "workloads", "cmd"},
		Reason: "results imports model: it reads and writes run directories over model's types"},
	{From: "workloads/subject", Not: []string{"impl/peers", "impl/mutants", "impl/driver", "workloads/catalog", "faults", "model"},
		Reason: "the subject registry holds no concrete lock: workloads/catalog registers them"},
	{From: "workloads", Not: []string{"impl/peers", "impl/mutants", "impl/driver", "workloads/catalog", "cmd"},
		Reason: "the runner takes a subject.Registry, so it runs fake subjects without the shipped locks (it writes run directories through results, their one owner)"},
	{From: "workloads/bench", Not: []string{"impl/peers", "impl/mutants", "workloads/catalog", "cmd"},
		Reason: "the benchmark measures subjects of a subject.Registry it is given"},
	{From: "workloads/catalog", Not: []string{"faults", "model", "results", "cmd"},
		Reason: "the catalog lists locks; it does not run them"},
	{From: "workloads/...", Not: []string{"cmd"},
		Reason: "cmd wires it all: nothing imports it"},
}

// covered says whether r's From matches pkg (a full import path).
func covered(r importRule, pkg string) bool {
	rel, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return false
	}
	if tree, ok := strings.CutSuffix(r.From, "/..."); ok {
		return rel == tree || strings.HasPrefix(rel, tree+"/")
	}
	return rel == r.From
}

// moduleDeps returns every package of the module with its transitive
// dependencies (go list), test files excluded.
func moduleDeps(t *testing.T) map[string][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.ImportPath}} {{join .Deps \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		deps[f[0]] = f[1:]
	}
	return deps
}

// violation returns why dep breaks r, or "".
func violation(r importRule, dep string) string {
	first, _, _ := strings.Cut(dep, "/")
	if !strings.Contains(first, ".") {
		return "" // standard library
	}
	if r.Only != nil {
		for _, ok := range r.Only {
			if dep == ok || strings.HasPrefix(dep, ok+"/") {
				return ""
			}
		}
		return "not among " + strings.Join(r.Only, ", ")
	}
	rel, ok := strings.CutPrefix(dep, module+"/")
	if !ok {
		return ""
	}
	for _, n := range r.Not {
		if rel == n || strings.HasPrefix(rel, n+"/") {
			return "under " + n
		}
	}
	return ""
}

// TestImportDirections: no package depends, even through another, on what
// the layout forbids it.
func TestImportDirections(t *testing.T) {
	deps := moduleDeps(t)
	for _, r := range importRules {
		checked := 0
		for pkg, ds := range deps {
			if !covered(r, pkg) {
				continue
			}
			checked++
			for _, d := range ds {
				if why := violation(r, d); why != "" {
					t.Errorf("%s depends on %s (%s): %s", pkg, d, why, r.Reason)
				}
			}
		}
		if checked == 0 {
			t.Errorf("rule for %s covers no package", r.From)
		}
	}
}

// TestImportRulesCatch: the rules flag a forbidden dependency (the check
// above cannot pass by matching nothing).
func TestImportRulesCatch(t *testing.T) {
	for _, tc := range []struct {
		from, pkg, dep string
	}{
		{"workloads", module + "/workloads", module + "/impl/peers"},
		{"workloads", module + "/workloads", module + "/workloads/catalog"},
		{"faults/...", module + "/faults/container", module + "/model"},
		{"model/...", module + "/model", "github.com/redis/go-redis/v9"},
		{"impl/...", module + "/impl/mutants", module + "/workloads"},
		{"workloads/...", module + "/workloads/scenario", module + "/cmd/lockcheck"},
		{"results/...", module + "/results", module + "/workloads"},
		{"workloads/bench", module + "/workloads/bench", module + "/impl/mutants"},
	} {
		flagged := false
		for _, r := range importRules {
			if r.From == tc.from && covered(r, tc.pkg) && violation(r, tc.dep) != "" {
				flagged = true
			}
		}
		if !flagged {
			t.Errorf("%s -> %s: not flagged by the rule for %s", tc.pkg, tc.dep, tc.from)
		}
	}
}
