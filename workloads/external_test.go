package workloads

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// externalRegistry holds the reference locks and the test binary's Go
// drivers.
func externalRegistry(t *testing.T, drivers ...subject.Subject) *subject.Registry {
	t.Helper()
	reg, err := catalog.Subjects.With(drivers...)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// TestExternalDriverIsValid: the reentrant lock behind the protocol passes
// the default workload like the in-process one, and its history says which
// implementation each process ran.
func TestExternalDriverIsValid(t *testing.T) {
	t.Parallel() // a redis-server of its own; the run mostly waits
	s := startRedis(t)
	reg := externalRegistry(t, goDriver("go-driver", "ok"))
	res := run(t, s, RunConfig{Subject: "go-driver", Workload: DefaultWorkload, Seed: 3, Duration: 3 * time.Second}, Deps{Registry: reg})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 || res.Stats.Info != 0 {
		t.Fatalf("%s: want valid with grants and no info ops\n%s", summary(res), res.Report)
	}
	if res.Subject.Kind != subject.KindExternal || res.History.Header.Meta[model.MetaParts] != "go-driver" {
		t.Fatalf("subject %+v, parts %q", res.Subject, res.History.Header.Meta[model.MetaParts])
	}
}

// TestExternalDriverMisbehaves: a driver that hangs, crashes or prints
// garbage mid-run yields info ops naming the failure and replacement
// processes; the run ends on time and the (correct) lock stays valid.
func TestExternalDriverMisbehaves(t *testing.T) {
	t.Parallel() // a redis-server of its own; the run mostly waits
	s := startRedis(t)
	// The driver misbehaves at its sixth request line: on a loaded CI
	// machine a process made as few as 5 ops in the 3 s run, so a later
	// request (12 once) was never reached.
	for _, mode := range []string{"hang@6", "crash@6", "garbage@6"} {
		t.Run(mode, func(t *testing.T) {
			name := "go-" + strings.ReplaceAll(mode, "@", "-")
			reg := externalRegistry(t, goDriver(name, mode))
			cfg := RunConfig{Subject: name, Workload: DefaultWorkload, Seed: 5, Duration: 3 * time.Second, OpTimeout: time.Second, StopTimeout: 3 * time.Second}
			// Under make test's load a run's driver processes have spent
			// all 3 s starting (0 ops), or made too few requests to reach
			// the sixth: such a run, which never met the misbehaviour, is
			// tried on the next seed, up to three.
			for tries := 1; ; tries, cfg.Seed = tries+1, cfg.Seed+1 {
				start := time.Now()
				res := run(t, s, cfg, Deps{Registry: reg})
				t.Log(summary(res), "in", time.Since(start).Round(time.Millisecond))
				if took := time.Since(start); took > 20*time.Second {
					t.Fatalf("run took %v", took)
				}
				if reached := res.Stats.Info > 0 || res.Stats.Processes > res.Plan.Processes; reached || tries == 3 {
					checkMisbehaved(t, res)
					return
				}
				checkNoViolation(t, res)
			}
		})
	}
}

// checkMisbehaved fails the test unless a run of a correct lock behind a
// misbehaving driver ended in info ops naming the driver's failure (or one
// of the errors allowed), replaced processes and no violation.
func checkMisbehaved(t *testing.T, res *Result, allowed ...string) {
	t.Helper()
	if res.Stats.Info == 0 || res.Stats.Processes <= res.Plan.Processes {
		t.Fatalf("%s: want info ops and replaced processes (%d processes for %d slots)", summary(res), res.Stats.Processes, res.Plan.Processes)
	}
	// An op may also run out of its own time on a loaded machine: the
	// driver then says the outcome is unknown, which is the truth.
	clear := func(e string) bool {
		return strings.Contains(e, "driver failed") || strings.Contains(e, "context canceled") ||
			strings.Contains(e, "outcome unknown") ||
			slices.ContainsFunc(allowed, func(a string) bool { return strings.Contains(e, a) })
	}
	for _, o := range res.History.Ops {
		if o.Outcome == model.Info && !clear(o.Error) {
			t.Fatalf("info op with an unclear error: %s: %q", o, o.Error)
		}
	}
	checkNoViolation(t, res)
}

// checkNoViolation fails the test if a checker but the contract's TryLock
// timing found a violation in res, a run of a correct lock.
func checkNoViolation(t *testing.T, res *Result) {
	t.Helper()
	// The contract's TryLock timing is not this test's subject: a
	// replacement driver process (a cold JVM) on a machine busy with other
	// tests may answer past the timing slack (CI: 600 ms for a 58 ms wait).
	// Every other checker must hold.
	for _, r := range res.Report.Results {
		switch {
		case r.Verdict != model.Invalid:
		case r.Checker == model.CheckContract: // TryLock timing only (model.CheckTiming)
			t.Logf("late TryLocks after driver replacements, not judged here: %s", r.Explanation)
		default:
			t.Fatalf("the lock is correct, the driver is not: want no violation\n%s", res.Report)
		}
	}
}

// TestExternalStallIsSIGSTOP: a client stall freezes the driver's process
// (state T), renewal included, so a stall past the lease breaks mutual
// exclusion as it does for an in-process lock.
func TestExternalStallIsSIGSTOP(t *testing.T) {
	s := startRedis(t)
	res := stallRun(t, s, "go-driver", externalRegistry(t, goDriver("go-driver", "ok")))
	if got, ok := res.Report.Result(model.CheckMutualExclusion); !ok || got.Verdict != model.Invalid {
		t.Fatalf("stall past the lease: want mutual exclusion broken\n%s", res.Report)
	}
}

// stallRun runs an external subject of reg (nil: catalog.Subjects) with one worker
// stalled for 3 s, past the 1.5 s lease, and fails the test unless a driver
// process was stopped (SIGSTOP) meanwhile.
func stallRun(t *testing.T, s *faults.Server, subject string, reg *subject.Registry) *Result {
	t.Helper()
	plan := Plan{
		Processes: 3, Locks: []string{"st"}, Hold: Range{Min: 5 * time.Millisecond, Max: 30 * time.Millisecond},
		Think: Range{Max: 10 * time.Millisecond}, Counter: true, OpTimeout: 5 * time.Second,
	}
	stopped := make(chan bool, 1)
	deps := Deps{Registry: reg, Nemesis: func(c faults.Clients) (*faults.Nemesis, error) {
		return &faults.Nemesis{
			Faults:   []faults.Fault{faults.Stall(c, c.Targets()[0])},
			Schedule: faults.Schedule{{At: 500 * time.Millisecond, Duration: 3 * time.Second}},
			Started: func(faults.Window) {
				stopped <- stoppedChild(5 * time.Second)
			},
		}, nil
	}}
	res := run(t, s, RunConfig{Subject: subject, Plan: &plan, Seed: 2, Duration: 5 * time.Second}, deps)
	t.Log(summary(res))
	if !<-stopped {
		t.Fatal("no driver process was in the stopped state during the stall")
	}
	return res
}

// stoppedChild polls, until within, for a child of this process in the
// stopped state (SIGSTOP).
func stoppedChild(within time.Duration) bool {
	me := strconv.Itoa(os.Getpid())
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			s := string(b)
			i := strings.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[0] == "T" && f[1] == me {
				return true
			}
		}
	}
	return false
}

// TestMixedFleet: processes alternate between the in-process reentrant lock
// and the same lock behind the protocol, on the same lock names: they share
// keys, scripts and messages, so together they are still a mutex.
func TestMixedFleet(t *testing.T) {
	t.Parallel() // a redis-server of its own; the run mostly waits
	s := startRedis(t)
	reg := externalRegistry(t, goDriver("go-driver", "ok"))
	res := run(t, s, RunConfig{Subject: "reentrant+go-driver", Workload: DefaultWorkload, Seed: 4, Duration: 3 * time.Second}, Deps{Registry: reg})
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
	parts := res.History.Header.Parts()
	if strings.Join(parts, ",") != "reentrant,go-driver" || res.Subject.Kind != subject.KindMixed {
		t.Fatalf("parts %v, kind %s", parts, res.Subject.Kind)
	}
	granted := map[string]int{}
	for _, o := range res.History.Ops {
		if o.Kind == model.Acquire && o.Outcome == model.OK {
			granted[model.PartOf(parts, o)]++
		}
	}
	if granted["reentrant"] == 0 || granted["go-driver"] == 0 {
		t.Fatalf("grants per part %v: want both", granted)
	}
}
