package main

import (
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// Every command's --help prints its usage exactly once.
func TestHelpPrintsUsageOnce(t *testing.T) {
	for _, c := range commands() {
		for _, args := range [][]string{{c.name, "--help"}, {"help", c.name}} {
			code, out, _ := lockcheck(t, args...)
			if code != exitValid {
				t.Errorf("%v: exit %d", args, code)
			}
			if n := strings.Count(out, "Usage:"); n != 1 {
				t.Errorf("%v prints its usage %d times:\n%s", args, n, out)
			}
		}
	}
}

// Every scenario an example names exists.
func TestExamplesNameExistingScenarios(t *testing.T) {
	var texts []string
	_, usage, _ := lockcheck(t, "help")
	texts = append(texts, usage)
	for _, c := range commands() {
		_, out, _ := lockcheck(t, c.name, "--help")
		texts = append(texts, out)
	}
	re := regexp.MustCompile(`--scenarios? ([a-z0-9,-]+)`)
	for _, text := range texts {
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			for _, name := range splitList(m[1]) {
				if _, err := scenario.Lookup(name); err != nil {
					t.Errorf("an example names scenario %q: %v", name, err)
				}
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := lockcheck(t, "version")
	if code != exitValid || !strings.Contains(out, runtime.Version()) || !strings.Contains(out, "lockcheck") {
		t.Fatalf("version: exit %d\n%s", code, out)
	}
	var b strings.Builder
	writeVersion(&b, &debug.BuildInfo{
		GoVersion: "go1.99", Main: debug.Module{Path: "example.com/lc", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "true"}},
	})
	for _, want := range []string{"v1.2.3", "example.com/lc", "go1.99", "abc123", "2026-01-02T03:04:05Z", "modified"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("version output lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	writeVersion(&b, nil)
	if !strings.Contains(b.String(), "revision  unknown") {
		t.Errorf("version without build info:\n%s", b.String())
	}
}

// The scenario listing and every scenario's detail fit 100 columns.
func TestScenariosFit100Columns(t *testing.T) {
	outs := map[string]string{}
	_, outs["scenarios"], _ = lockcheck(t, "scenarios")
	for _, sc := range append(scenario.Catalog(), scenario.RemoteCatalog()...) {
		code, out, stderr := lockcheck(t, "scenarios", sc.Name)
		if code != exitValid || !strings.Contains(out, sc.Doc[:20]) {
			t.Errorf("scenarios %s: exit %d\n%s%s", sc.Name, code, out, stderr)
		}
		outs[sc.Name] = out
	}
	for what, out := range outs {
		for _, line := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(line); n > listWidth {
				t.Errorf("%s: a line of %d columns:\n%s", what, n, line)
			}
		}
	}
	if code, _, _ := lockcheck(t, "scenarios", "nope"); code != exitUsage {
		t.Errorf("scenarios nope: exit %d, want %d", code, exitUsage)
	}
}
