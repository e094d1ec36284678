package workloads

import (
	"os"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/impl/driver"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// goOwnersDriver is goDriver("ok") announcing that it hosts owners: the
// reentrant lock served by driver.Serve, its owners goroutines on one
// go-redis client in one driver process.
func goOwnersDriver(name string) subject.Subject {
	return catalog.Driver{
		Name: name, Doc: "the reentrant lock served by the test binary, owners sharing its process",
		Command:      []string{os.Args[0]},
		Env:          []string{goDriverEnv + "=ok", "GORACE=atexit_sleep_ms=0"},
		Capabilities: []string{driver.CapReentrant, driver.CapWatchdog},
		Owners:       true,
	}.Subject()
}

// TestOwnersGoPortAndDriverProcess: one client process of four goroutines
// on the in-process reentrant lock (one go-redis client and Maker) and one
// driver process of four owners served by driver.Serve, on one lock: the
// history is valid, both parts are granted, and the lock passes between
// owners within each process and across the two. A crash of a driver
// owner's worker takes its whole driver process down: its four owners, and
// no other, are retired together (their replacements run in a new one).
func TestOwnersGoPortAndDriverProcess(t *testing.T) {
	s := startRedis(t)
	reg := externalRegistry(t, goOwnersDriver("go-owners"))
	plan := ownersPlan()
	plan.ThreadsPerProcess = 4
	deps := Deps{Registry: reg, Nemesis: func(c faults.Clients) (*faults.Nemesis, error) {
		return &faults.Nemesis{
			Faults:   []faults.Fault{faults.Crash(c, "w5")}, // client process 2: the driver
			Schedule: faults.Schedule{{At: 1500 * time.Millisecond, Duration: 10 * time.Millisecond}},
		}, nil
	}}
	res := run(t, s, RunConfig{Subject: "reentrant+go-owners", Plan: plan, Seed: 6, Duration: 3 * time.Second}, deps)
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
	parts := res.History.Header.Parts()
	granted := map[string]int{}
	retired := map[int]bool{}
	for _, o := range res.History.Ops {
		switch {
		case o.Kind == model.Acquire && o.Outcome == model.OK:
			granted[model.PartOf(parts, o)]++
		case o.Kind == model.Abandon, o.Outcome == model.Info:
			retired[o.Process] = true
			if o.Client != 2 {
				t.Errorf("process %d of client process %d retired: only the crashed process 2's owners may be (%v)", o.Process, o.Client, o)
			}
		}
	}
	if granted["reentrant"] == 0 || granted["go-owners"] == 0 {
		t.Fatalf("grants per part %v: want both", granted)
	}
	if len(retired) != 4 {
		t.Errorf("retired processes %v: want the crashed driver process's 4 owners", retired)
	}
	if h := model.CountHandoffs(res.History); h.Within == 0 || h.Across == 0 {
		t.Errorf("hand-offs %+v: want some within a process and some across", h)
	}
}
