package workloads

import (
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// mutantPlan is the plan the mutants are caught with: a handful of processes
// on one lock, blocking and timed acquires, reentry, short sections that
// read-modify-write the protected register.
func mutantPlan() Plan {
	return Plan{
		Workload: "mutant-hunt", Processes: 6, Locks: []string{"m"},
		TryLockPercent: 30, Wait: Range{0, 50 * time.Millisecond},
		Hold: Range{0, 3 * time.Millisecond}, Think: Range{0, 3 * time.Millisecond},
		MaxReentry: 2, Counter: true, OpTimeout: 3 * time.Second,
	}
}

// crashPlan is one process that holds its lock most of the time; crashing
// it leaves a hold that runs out silently (no unlock message).
func crashPlan() Plan {
	return Plan{
		Workload: "crash-holder", Processes: 1, Locks: []string{"c"},
		Hold: Range{300 * time.Millisecond, 300 * time.Millisecond}, Think: Range{20 * time.Millisecond, 40 * time.Millisecond},
		Counter: true, OpTimeout: 3 * time.Second,
	}
}

// crashScenario crashes w0 twice, 350 ms apart: at least one crash hits it
// while it holds. Liveness flags a wait over 2 s outside fault windows: a
// TTL-bounded waiter waits at most the 1.5 s lease for the crashed hold.
func crashScenario(cfg *RunConfig, deps *Deps) {
	p := crashPlan()
	cfg.Plan = &p
	cfg.Duration = 5 * time.Second
	cfg.WatchdogLease = 1500 * time.Millisecond
	cfg.MaxWait = 2 * time.Second
	deps.Nemesis = func(c faults.Clients) (*faults.Nemesis, error) {
		return &faults.Nemesis{
			Faults: []faults.Fault{faults.Crash(c, "w0")},
			Schedule: faults.Schedule{
				{At: time.Second, Duration: 5 * time.Millisecond, Fault: 0},
				{At: 1350 * time.Millisecond, Duration: 5 * time.Millisecond, Fault: 0},
			},
		}, nil
	}
}

// mutantCatch says how each mutant is caught: the checker that must say
// invalid, and whether it takes the crash scenario.
var mutantCatch = map[string]struct {
	checker string
	crash   bool
}{
	"mutant-check-then-set":        {checker: model.CheckMutualExclusion},
	"mutant-unlock-no-owner-check": {checker: model.CheckLinearizable},
	"mutant-reentry-no-count":      {checker: model.CheckLinearizable},
	"mutant-renew-any-owner":       {checker: model.CheckLinearizable},
	"mutant-pubsub-only-wait":      {checker: model.CheckLiveness, crash: true},
	"mutant-error-is-success":      {checker: model.CheckLinearizable},
	"mutant-wakeup-is-grant":       {checker: model.CheckMutualExclusion},
}

// TestMutantsAreCaught runs every mutant on the run that must catch it, and
// the reference locks on the same runs, which must pass.
func TestMutantsAreCaught(t *testing.T) {
	s := startRedis(t)
	for _, subj := range Subjects.All() {
		if subj.Kind != KindMutant {
			continue
		}
		catch, ok := mutantCatch[subj.Name]
		if !ok {
			t.Errorf("%s: no catching run defined for this mutant", subj.Name)
			continue
		}
		t.Run(subj.Name, func(t *testing.T) {
			cfg, deps := mutantRun(subj.Name, catch.crash)
			start := time.Now()
			res := run(t, s, cfg, deps)
			t.Logf("%s in %v", summary(res), time.Since(start).Round(time.Millisecond))
			if res.Report.Verdict != model.Invalid {
				t.Fatalf("mutant not caught: verdict %s\n%s", res.Report.Verdict, res.Report)
			}
			if r, ok := res.Report.Result(catch.checker); !ok || r.Verdict != model.Invalid {
				t.Fatalf("checker %s did not catch it:\n%s", catch.checker, res.Report)
			}
		})
	}
	for _, ref := range []string{"reentrant", "fenced"} {
		for _, crash := range []bool{false, true} {
			name := ref + "/hunt"
			if crash {
				name = ref + "/crash"
			}
			t.Run(name, func(t *testing.T) {
				cfg, deps := mutantRun(ref, crash)
				res := run(t, s, cfg, deps)
				t.Log(summary(res))
				if res.Report.Verdict != model.Valid {
					t.Fatalf("reference lock fails the mutant run: %s\n%s", res.Report.Verdict, res.Report)
				}
				if crash && res.Stats.Abandons+res.Stats.Info == 0 {
					t.Fatalf("the crashes retired nothing: %+v", res.Stats)
				}
			})
		}
	}
}

func mutantRun(subject string, crash bool) (RunConfig, Deps) {
	cfg := DefaultRunConfig()
	cfg.Subject, cfg.Seed = subject, 3
	cfg.CheckTimeout = 30 * time.Second
	var deps Deps
	if crash {
		crashScenario(&cfg, &deps)
		return cfg, deps
	}
	p := mutantPlan()
	cfg.Plan = &p
	cfg.Duration = 2500 * time.Millisecond
	return cfg, deps
}
