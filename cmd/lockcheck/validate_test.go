package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestValidateOnlyStopsEveryCommand: with env.validateOnly every
// command that would start something stops once its command line is
// checked, and says so; a command added without that stop fails here
// (the documentation test would otherwise start its runs).
func TestValidateOnlyStopsEveryCommand(t *testing.T) {
	nightlyOut := t.TempDir()
	if err := os.WriteFile(filepath.Join(nightlyOut, "matrix.json"), []byte(`{"version":1,"cells":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stops := map[string][][]string{
		"run":        {{"run", "--subject", "reentrant", "--duration", "2s"}, {"run", "--scenario", "no-faults", "--subject", "reentrant"}},
		"hunt":       {{"hunt", "--subject", "reentrant"}},
		"bench":      {{"bench", "--quick"}},
		"nightly":    {{"nightly", "--seeds", "1"}},
		"report":     {{"report", "--out", t.TempDir(), nightlyOut}},
		"scoreboard": {{"scoreboard", "--seeds", "1", "--subjects", "redsync"}, {"scoreboard", "render", "--page", t.TempDir(), nightlyOut}},
		"driver":     {{"driver", "reentrant"}},
		"sweep":      {{"sweep"}},
		"rediscover": {{"rediscover", "--catalog", testCatalog, "--budget", "1m"}},
		"releases":   {{"releases", "redisson@3.43.0", "--hunt", "--budget", "30s"}},
		"bisect":     {{"bisect", "--run", committedFind, "--good", "3.16.0"}},
	}
	for _, c := range commands() {
		cases, ok := stops[c.name]
		if !ok {
			if !cheapCommands[c.name] && c.name != "check" {
				t.Errorf("lockcheck %s: no validate-only case here: give it a stop (env.stopValidated) and a case", c.name)
			}
			continue
		}
		for _, args := range cases {
			var out, errOut strings.Builder
			ctx, cancel := context.WithTimeout(t.Context(), validateBound)
			code := run(ctx, &env{stdout: &out, stderr: &errOut, validateOnly: true}, args)
			cancel()
			if code != exitValid || !strings.Contains(errOut.String(), "command line valid") {
				t.Errorf("%s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut.String())
			}
			if out.Len() > 0 {
				t.Errorf("%s: printed %q: a validated command prints nothing on stdout", strings.Join(args, " "), out.String())
			}
		}
	}
	if !slices.ContainsFunc(commands(), func(c command) bool { return c.name == "check" }) {
		t.Error("no check command")
	}
}
