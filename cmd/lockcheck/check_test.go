package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runDir writes a run directory holding only history.jsonl.
func runDir(t *testing.T, history string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), []byte(history), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const (
	hdrLine = `{"header":{"version":1}}` + "\n"
	okAcq   = `{"op":{"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok","lease":1000000000}}` + "\n"
	okRel   = `{"op":{"p":1,"lock":"L","kind":"release","call":3,"ret":4,"outcome":"ok"}}` + "\n"
)

// Histories that cannot come from a run are bad input (exit 2, the line
// named), never a violation and never valid; so is a history without ops.
func TestCheckBadHistoryExits2(t *testing.T) {
	op := func(s string) string { return `{"op":{` + s + `}}` + "\n" }
	for _, tc := range []struct{ name, history, want string }{
		{"returns before call", hdrLine + okAcq + op(`"p":1,"lock":"L","kind":"release","call":9,"ret":1,"outcome":"ok"`), "line 3"},
		{"unknown kind", hdrLine + op(`"p":1,"lock":"L","kind":"steal","call":1,"ret":2,"outcome":"ok"`), "line 2"},
		{"unknown outcome", hdrLine + op(`"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"maybe"`), "line 2"},
		{"negative process", hdrLine + op(`"p":-3,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"`), "line 2"},
		{"empty lock", hdrLine + op(`"p":1,"lock":"","kind":"acquire","call":1,"ret":2,"outcome":"ok"`), "line 2"},
		{"no header", okAcq + okRel, "line 1"},
		{"header only", hdrLine, "no ops"},
		{"two ops at once", hdrLine + okAcq + op(`"p":1,"lock":"L","kind":"release","call":1,"ret":4,"outcome":"ok"`), "line 3"},
		{"unknown key", hdrLine + op(`"p":1,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok","blockino":true`), "line 2"},
		{"op after the end record's time", hdrLine + okAcq + okRel + `{"end":{"at":3}}` + "\n", "line 3"},
		{"extreme time", hdrLine + op(`"p":1,"lock":"L","kind":"acquire","call":9200000000000000000,"ret":9200000000000000001,"outcome":"ok"`), "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lockcheck(t, "check", runDir(t, tc.history))
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d (want %d), stderr should name %q:\n%s\n%s", code, exitUsage, tc.want, stdout, stderr)
			}
		})
	}
}

// A history cut short by a run that did not finish is not a success: the
// verdict says so and the exit status is 2 unless the prefix holds a
// violation (1).
func TestCheckTruncatedHistory(t *testing.T) {
	cut := `{"op":{"p":1,"lock":"L","kind":"acq`
	code, stdout, stderr := lockcheck(t, "check", runDir(t, hdrLine+okAcq+okRel+cut))
	if code != exitUsage || !strings.Contains(stdout, "did not finish") || !strings.Contains(stdout, "unknown") {
		t.Fatalf("truncated valid prefix: exit %d, want %d and a verdict saying so:\n%s\n%s", code, exitUsage, stdout, stderr)
	}
	bad := `{"op":{"p":2,"lock":"L","kind":"acquire","call":1,"ret":2,"outcome":"ok"}}` + "\n"
	if code, stdout, _ := lockcheck(t, "check", runDir(t, hdrLine+okAcq+bad+cut)); code != exitInvalid {
		t.Fatalf("truncated prefix with a violation: exit %d, want %d\n%s", code, exitInvalid, stdout)
	}
	code, _, _ = lockcheck(t, "check", runDir(t, hdrLine+okAcq+okRel))
	if code != exitValid {
		t.Fatalf("complete valid history: exit %d", code)
	}
}
