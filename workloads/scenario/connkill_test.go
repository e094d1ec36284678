package scenario

import (
	"testing"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// client-conn-kill aims its kills at the holder's renewals (two windows in
// three): a watchdog that stops at its first failed renewal is caught
// beyond the fault within three seeds, with no hook in the lock, while
// lockcheck's reentrant lock, whose watchdog retries, stays valid.
func TestClientConnKillCatchesAWatchdogThatGivesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	reg, err := catalog.Subjects.With(catalog.MutantBase())
	if err != nil {
		t.Fatal(err)
	}
	t.Run("mutant-renew-gives-up", func(t *testing.T) {
		for seed := int64(1); seed <= 3; seed++ {
			if beyond(t, reg, "client-conn-kill", "mutant-renew-gives-up", seed) == model.Invalid {
				return
			}
		}
		t.Fatal("fault-allowance did not fire on client-conn-kill in 3 seeds")
	})
	t.Run("reentrant", func(t *testing.T) {
		res := runScenario(t, "client-conn-kill", "reentrant", 1)
		if len(injected(res.History)) == 0 {
			t.Fatal("no fault window recorded")
		}
		expectMet(t, "client-conn-kill", "reentrant", res)
	})
}
