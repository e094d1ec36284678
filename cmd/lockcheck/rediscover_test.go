package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/rediscover"
)

const testCatalog = "../../results/known-bugs.json"

func TestRediscoverBadInputExits2(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"bugs": [{"id": "x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"unknown bug", []string{"--bugs", "no-such-bug"}, `unknown bug "no-such-bug"`},
		{"missing catalog", []string{"--catalog", "/nonexistent/known-bugs.json"}, "--catalog"},
		{"bad catalog", []string{"--catalog", bad}, "library: empty"},
		{"zero budget", []string{"--budget", "0s"}, "--budget 0s: want a positive duration"},
		{"short runs", []string{"--run-duration", "1s"}, "--run-duration 1s: want at least 2s"},
		{"run over budget", []string{"--budget", "5s"}, "does not fit in --budget 5s"},
		{"stand-in without version", []string{"--stand-in", "redisson=redisson-3.43"}, "want NAME@VERSION=SUBJECT"},
		{"stand-in unknown subject", []string{"--stand-in", "redisson@3.43.0=nope"}, `unknown subject "nope"`},
		{"stand-in twice", []string{"--stand-in", "redisson@3.43.0=redisson,redisson@3.43.0=redisson"}, "given twice"},
		{"one file twice", []string{"--out", "x.md", "--json", "x.md"}, "same file"},
		{"stray argument", []string{"extra"}, "unexpected arguments: extra"},
		{"merge a missing report", []string{"--merge", "/nonexistent/a.json"}, "--merge: open /nonexistent/a.json"},
		{"merge a catalog", []string{"--merge", testCatalog + "," + testCatalog + "x"}, "--merge: open " + testCatalog + "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"rediscover", "--catalog", testCatalog}, tc.args...)
			code, _, stderr := lockcheck(t, args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "lockcheck rediscover --help") {
				t.Errorf("stderr does not mention %q and the help:\n%s", tc.want, stderr)
			}
		})
	}
}

// TestRediscoverList: --list prints every bug of the catalog, and what
// lockcheck lacks for those it cannot produce.
func TestRediscoverList(t *testing.T) {
	code, stdout, stderr := lockcheck(t, "rediscover", "--catalog", testCatalog, "--list")
	if code != exitValid {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	c, err := rediscover.LoadFile(testCatalog)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Bugs {
		fixed := b.Fixed
		if b.Open() {
			fixed = "open (" + b.Upstream + ")"
		}
		if !strings.Contains(stdout, b.ID) || !strings.Contains(stdout, b.Release(b.Buggy)+" → "+fixed) || !strings.Contains(stdout, b.Signature.String()) {
			t.Errorf("--list lacks %s (%s → %s):\n%s", b.ID, b.Release(b.Buggy), b.Fixed, stdout)
		}
	}
	for _, b := range c.Bugs {
		if b.Missing != "" && !strings.Contains(stdout, "missing: "+b.Missing) {
			t.Errorf("--list does not say what %s misses (%s):\n%s", b.ID, b.Missing, stdout)
		}
	}
}

// TestRediscoverWrites: the table goes to stdout, the page to --out with
// its title, the JSON to --json, and the JSON reads back.
func TestRediscoverWrites(t *testing.T) {
	dir := t.TempDir()
	rep := &rediscover.Report{Seed: 3, Rows: []rediscover.Row{{
		Bug: rediscover.Bug{ID: "b", Library: "Lib", Subject: "lib", Buggy: "1", Fixed: "2"}, Outcome: rediscover.NotRun,
		Why: "no subject lib@1 in the registry", FixedOutcome: rediscover.FixedNotRun,
	}}}
	var out, errOut bytes.Buffer
	e := &env{stdout: &out, stderr: &errOut}
	md, js := filepath.Join(dir, "page", "rediscovery.md"), filepath.Join(dir, "rediscovery.json")
	if err := writeRediscovery(e, rep, md, js); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "# Rediscovery") || !strings.Contains(string(page), "| `b` (Lib) | 1 → 2 | `*/*/*/*` | not run: no subject lib@1") ||
		!strings.Contains(string(page), "lockcheck at commit ") {
		t.Errorf("page:\n%s", page)
	}
	if !strings.Contains(out.String(), "| `b` (Lib) |") {
		t.Errorf("stdout lacks the table:\n%s", out.String())
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"outcome": "not run"`) || !strings.Contains(string(data), `"seed": 3`) {
		t.Errorf("json:\n%s", data)
	}
	out.Reset()
	errOut.Reset()
	if err := writeRediscovery(e, rep, "", "-"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "{") || !strings.Contains(errOut.String(), "| `b` (Lib) |") {
		t.Errorf("--json -: stdout must hold the JSON alone, the table going to stderr:\nstdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
}

// A part kept gzipped merges as the plain one does.
func TestRediscoverMergesGzippedParts(t *testing.T) {
	part := "../../results/findings/rediscovery-2611300-10m/redisson-3.17.1-renewal-outlives-unlock.json"
	if _, err := os.Stat(part); err != nil {
		part += results.Gz
	}
	dir := t.TempDir()
	plain, gz := filepath.Join(dir, "part.json"), filepath.Join(dir, "part.json.gz")
	b, err := results.ReadKept(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := results.CompressFile(plain, gz, 0o644); err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, p := range []string{plain, gz} {
		md := p + ".md"
		if code, _, stderr := lockcheck(t, "rediscover", "--catalog", testCatalog, "--merge", p, "--out", md); code > exitInvalid {
			t.Fatalf("--merge %s: exit %d\n%s", p, code, stderr)
		}
		page, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		pages[p] = strings.ReplaceAll(string(page), filepath.Base(p), "PART")
	}
	if pages[plain] != pages[gz] || !strings.Contains(pages[gz], "redisson-3.17.1-renewal-outlives-unlock") {
		t.Errorf("the gzipped part merges otherwise:\n%s\n---\n%s", pages[plain], pages[gz])
	}
}
