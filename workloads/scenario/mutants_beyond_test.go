package scenario

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl/mutants"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// Every mutant with an exposing scenario (Mutant.Scenario) is caught there
// beyond the fault: the fault-allowance checker fires within three seeds
// (make catch-rates measures how often). The mutants' base without a flaw
// runs each of those scenarios once and must stay within the faults'
// allowance, or a catch could be the base's doing. To keep make test within
// its time, only the mutants exposed by client-stall or no-faults run
// unless LOCKCHECK_MUTANT_SCENARIOS=all (make catch-rates runs every one).
func TestMutantsBeyondTheirScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	all := os.Getenv("LOCKCHECK_MUTANT_SCENARIOS") == "all"
	base := catalog.MutantBase()
	reg, err := catalog.Subjects.With(base)
	if err != nil {
		t.Fatal(err)
	}
	done := map[string]bool{}
	for _, m := range mutants.All() {
		if m.Scenario == "" || !all && m.Scenario != "client-stall" && m.Scenario != "no-faults" {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			for seed := int64(1); seed <= 3; seed++ {
				if beyond(t, reg, m.Scenario, m.Name, seed) == model.Invalid {
					return
				}
			}
			t.Fatalf("fault-allowance did not fire on %s in 3 seeds", m.Scenario)
		})
		if done[m.Scenario] {
			continue
		}
		done[m.Scenario] = true
		t.Run(base.Name+"/"+m.Scenario, func(t *testing.T) {
			if v := beyond(t, reg, m.Scenario, base.Name, 1); v != model.Valid {
				t.Fatalf("fault-allowance %s for the flawless base", v)
			}
		})
	}
}

// beyond runs scenario name for subj (from reg) with seed and returns the
// fault-allowance checker's verdict.
func beyond(t *testing.T, reg *subject.Registry, name, subj string, seed int64) model.Verdict {
	t.Helper()
	sc, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := sc.Prepare(ctx, Options{Subject: subj, Seed: seed, CheckTimeout: 30 * time.Second, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := workloads.Run(ctx, p.Config, p.Deps)
	if err != nil {
		t.Fatalf("%s/%s: %v", name, subj, err)
	}
	r, ok := res.Report.Result(model.CheckAllowance)
	if !ok {
		t.Fatalf("%s/%s: the fault-allowance checker did not run", name, subj)
	}
	t.Logf("%s/%s seed %d: %s, fault-allowance %s", name, subj, seed, res.Report.Verdict, r.Verdict)
	return r.Verdict
}
