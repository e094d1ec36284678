package hunt

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/permits"
)

// A hunt in a semaphore runs the permits runner: it finds a broken one,
// shrinks only the duration (its plan is the seed's), and prints a rerun
// command without a plan file; its scenarios are those whose faults act
// on semaphores.
func TestRunHuntsSemaphores(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts a redis-server (skipped with -short)")
	}
	subj, ok := permits.Named("mutant-latch-early-open") // a latch: no handover round, short runs
	if !ok {
		t.Fatal("not a permits subject")
	}
	for _, sc := range Scenarios(subj) {
		if !sc.Permits {
			t.Errorf("a semaphore's hunt draws %s, whose faults do not act on it", sc.Name)
		}
	}
	rec := &recorder{}
	res, err := Run(t.Context(), Config{Subject: subj.Name, Budget: 30 * time.Second, RunDuration: 6 * time.Second,
		Seed: 3, Out: t.TempDir(), Observer: rec})
	if err != nil || res.Find == nil {
		t.Fatalf("Run: %v, %+v\n%q", err, res, rec.events)
	}
	f := res.Find
	if f.Shrunk.Report.Verdict != model.Invalid || f.PlanFile != "" || f.Plan != nil {
		t.Errorf("shrunk %s, plan file %q, plan %s", f.Shrunk.Report.Verdict, f.PlanFile, f.Plan)
	}
	for _, st := range f.Steps {
		if !strings.HasPrefix(st, "shorten the duration") {
			t.Errorf("kept step %q: only the duration shrinks a semaphore's draw", st)
		}
	}
	if slices.Contains(f.Command, "--plan") || !strings.Contains(f.CommandLine(), "lockcheck run") || !strings.Contains(f.CommandLine(), "--subject mutant-latch-early-open") {
		t.Errorf("command %s", f.CommandLine())
	}
}
