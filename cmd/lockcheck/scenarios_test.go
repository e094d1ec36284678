package main

import (
	"strings"
	"testing"

	"github.com/lockcheck/lockcheck/workloads/scenario"
)

func TestScenariosListing(t *testing.T) {
	code, out, _ := lockcheck(t, "scenarios")
	if code != exitValid {
		t.Fatalf("exit %d", code)
	}
	for _, n := range scenario.Names() {
		if !strings.Contains(out, n) {
			t.Errorf("listing lacks %s:\n%s", n, out)
		}
	}
	if _, out, _ := lockcheck(t, "scenarios", "client-stall"); !strings.Contains(out, "mutex broken, fences held") {
		t.Errorf("client-stall's detail lacks the fenced expectation:\n%s", out)
	}
}

func TestScenarioBadInputExits2(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--scenario", "nope"},
		{"run", "--scenario", "no-faults", "--redis", "localhost:6379"},
		{"run", "--scenario", "no-faults", "--workload", "counter"},
		{"run", "--scenario", "no-faults", "--subject", "nope"},
		{"nightly", "--seeds", "0"},
		{"nightly", "--scenarios", "nope"},
		{"nightly", "--subjects", "nope"},
	} {
		if code, _, _ := lockcheck(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// TestRunScenario runs one short scenario end to end: exit 0 when the
// verdict is the expected one, and a run directory under runs/<scenario>.
func TestRunScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server")
	}
	out := t.TempDir()
	code, stdout, stderr := lockcheck(t, "run", "--scenario", "client-stall", "--subject", "fenced", "--seed", "2", "--out", out)
	if code != exitValid {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "as expected (mutex broken, fences held)") || !strings.Contains(stdout, out+"/runs/client-stall/") {
		t.Fatalf("output:\n%s", stdout)
	}
}
