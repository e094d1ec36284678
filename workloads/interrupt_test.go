package workloads

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
)

// TestInterruptGoDriver: client-interrupt faults on the owners of a Go
// driver process (driver.Serve, which announces interrupts) reach their
// calls through the protocol's interrupt: interrupted ops end fail or ok,
// never info (the process lives on), and the history stays valid.
func TestInterruptGoDriver(t *testing.T) {
	s := startRedis(t)
	reg := externalRegistry(t, catalog.Driver{
		Name: "go-interrupts", Doc: "the reentrant lock served by the test binary, interruptible",
		Command:      []string{os.Args[0]},
		Env:          []string{goDriverEnv + "=ok", "GORACE=atexit_sleep_ms=0"},
		Capabilities: []string{driver.CapReentrant, driver.CapWatchdog, driver.CapInterrupt},
		Owners:       true,
	}.Subject())
	plan := ownersPlan()
	plan.Interruptible = true
	plan.Wait, plan.Hold = Range{Max: 80 * time.Millisecond}, Range{Min: 20 * time.Millisecond, Max: 40 * time.Millisecond}
	deps := Deps{Registry: reg, Nemesis: func(c faults.Clients) (*faults.Nemesis, error) {
		in := c.(faults.Interrupter)
		n := &faults.Nemesis{}
		for i := range 8 {
			n.Faults = append(n.Faults, faults.Interrupt(in, "w"+itoa(i%6), 10*time.Millisecond))
			n.Schedule = append(n.Schedule, faults.Step{Fault: i, At: time.Duration(300+250*i) * time.Millisecond, Duration: 50 * time.Millisecond})
		}
		return n, nil
	}}
	res := run(t, s, RunConfig{Subject: "go-interrupts", Plan: plan, Seed: 3, Duration: 3 * time.Second}, deps)
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
	interrupted := 0
	for _, o := range res.History.Ops {
		if !strings.HasPrefix(o.Error, errInterrupted.Error()) {
			continue
		}
		interrupted++
		if o.Outcome == model.Info {
			t.Errorf("interrupted op ended info (the driver process died): %+v", o)
		}
	}
	if interrupted == 0 {
		t.Fatalf("no op was interrupted: %s", summary(res))
	}
	t.Logf("%d ops interrupted; %s", interrupted, summary(res))
}
