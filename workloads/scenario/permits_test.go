package scenario

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/results"
	"github.com/lockcheck/lockcheck/workloads/permits"
)

// runPermits runs subject under the scenario called name with a short
// plan (one round, a second of handovers) and returns the run's summary
// and history.
func runPermits(t *testing.T, name, subject string, seed int64) (results.Summary, *model.History) {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	subj, err := permits.Lookup(subject)
	if err != nil {
		t.Fatal(err)
	}
	plan := permits.DefaultPlan(seed)
	plan.Rounds, plan.Handovers = 2, time.Second
	dir := t.TempDir()
	out, err := sc.RunPermitsInto(t.Context(), permits.RunConfig{Subject: subj, Plan: plan}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if out.Degraded != nil {
		t.Fatalf("the faults failed: %v", out.Degraded)
	}
	h, err := model.ReadFile(filepath.Join(dir, "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return out.Summary, h
}

// A correct semaphore stays valid under faults that hit its workers, their
// links and the server, each window recorded with the processes it hit;
// a broken one is still caught under a fault. restart-aof-always's kill
// loses nothing, so it leaves every object judged.
func TestPermitsUnderFaults(t *testing.T) {
	for _, c := range []struct {
		scenario, subject string
		seed              int64
		want              model.Verdict
	}{
		{"client-crash", "semaphore", 1, model.Valid},
		{"partition-short", "permit-semaphore", 2, model.Valid},
		{"restart-aof-always", "semaphore", 3, model.Valid},
		{"partition-short", "mutant-sem-release-twice", 4, model.Invalid},
	} {
		t.Run(c.scenario+"/"+c.subject, func(t *testing.T) {
			t.Parallel() // each run has a world of its own, and mostly waits
			sum, h := runPermits(t, c.scenario, c.subject, c.seed)
			if len(h.Faults) == 0 {
				t.Fatal("no fault window recorded")
			}
			if got := sum.Report.Verdict; got != c.want {
				t.Fatalf("verdict %s, want %s:\n%s", got, c.want, sum.Report)
			}
			for _, r := range sum.Report.Results {
				if strings.Contains(r.Explanation, "not judged") {
					t.Fatalf("%s left objects unjudged under a fault that loses nothing: %s", r.Checker, r.Explanation)
				}
			}
		})
	}
}

// A scenario whose faults do not act on semaphores is refused by name.
func TestPermitsRefuseOtherScenarios(t *testing.T) {
	sc, err := Lookup("sentinel-split-brain")
	if err != nil {
		t.Fatal(err)
	}
	subj, err := permits.Lookup("semaphore")
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.RunPermitsInto(t.Context(), permits.RunConfig{Subject: subj, Plan: permits.DefaultPlan(1)}, t.TempDir())
	if !errors.Is(err, ErrNotForPermits) {
		t.Fatalf("err = %v, want ErrNotForPermits", err)
	}
}

// A semaphore or latch is expected valid on exactly the scenarios whose
// faults act on it, safe or not, and skipped, saying why, on the others.
func TestPermitsExpectation(t *testing.T) {
	subj, ok := permits.Named("redisson-semaphore")
	if !ok {
		t.Fatal("redisson-semaphore is not a permits subject")
	}
	unsafe := 0
	for _, sc := range Catalog() {
		exp := sc.Expectation(subj)
		switch {
		case sc.Permits && (exp.Skip != "" || exp.Verdict != model.Valid):
			t.Errorf("%s: %+v, want valid", sc.Name, exp)
		case !sc.Permits && exp.Skip == "":
			t.Errorf("%s: %+v, want skipped", sc.Name, exp)
		case sc.Permits && !sc.Safe:
			unsafe++
		}
	}
	if len(PermitsScenarios()) == 0 || unsafe == 0 {
		t.Errorf("%d scenarios for semaphores, %d of them unsafe for locks: want some of each", len(PermitsScenarios()), unsafe)
	}
}
