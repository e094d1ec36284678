package hunt

import (
	"slices"
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
)

// A mutant is hunted as the lock it claims to be: the must-pass scenarios
// a correct lock passes, and the unsafe ones, judged by the fault's
// allowance; the same goes for a reference lock.
func TestScenariosOfAMutant(t *testing.T) {
	for _, name := range []string{"mutant-renew-retakes", "reentrant"} {
		subj, err := catalog.Subjects.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, sc := range Scenarios(subj) {
			names = append(names, sc.Name)
		}
		for _, want := range []string{"no-faults", "client-crash", "renewal-refused", "client-stall", "client-stall-long-hold", "partition-long"} {
			if !slices.Contains(names, want) {
				t.Errorf("a hunt of %s does not draw %s: %v", name, want, names)
			}
		}
		if slices.Contains(names, "redlock-restart-empty") {
			t.Errorf("a hunt of %s draws a scenario it does not fit: %v", name, names)
		}
		stall := lookupScenario(t, "client-stall")
		within := model.Report{Verdict: model.Invalid, Results: []model.Result{
			{Checker: model.CheckLinearizable, Verdict: model.Invalid},
			{Checker: model.CheckAllowance, Verdict: model.Valid},
		}}
		if find, why := judgeScenario(stall, subj, within, nil); find {
			t.Errorf("%s: a stall that broke the lock within the fault is a find: %s", name, why)
		}
		within.Results[1].Verdict = model.Invalid
		if find, _ := judgeScenario(stall, subj, within, nil); !find {
			t.Errorf("%s: a stall beyond the fault's allowance is not a find", name)
		}
	}
}

func lookupScenario(t *testing.T, name string) scenario.Scenario {
	t.Helper()
	sc, err := scenario.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A read-write lock's plain draws run the read-write workload about one
// in two; a lock's never do.
func TestReadWriteDraws(t *testing.T) {
	rw := 0
	for seed := int64(1); seed <= 100; seed++ {
		p := DrawReadWrite(seed, Plan(seed))
		if err := p.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if p.Workload == "rwlock" {
			rw++
		}
	}
	if rw < 30 || rw > 70 {
		t.Errorf("%d of 100 draws run the read-write workload, want about 50", rw)
	}
}
