package workloads

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// ownersPlan is two client processes of three owners each on one lock.
func ownersPlan() *Plan {
	return &Plan{
		Workload: "owners", Processes: 2, ThreadsPerProcess: 3, Locks: []string{"l"},
		TryLockPercent: 30, Wait: Range{Max: 5 * time.Millisecond}, Hold: Range{Max: time.Millisecond},
		Think: Range{Max: 2 * time.Millisecond}, Counter: true, OpTimeout: 2 * time.Second,
	}
}

// TestOwnersShareClientProcesses: with three threads per process, owners
// 0-2 run in client process 1 and 3-5 in process 2 (Op.Client); a crash
// of worker w1 crashes its whole process at once (an Abandon op for each
// of owners 0, 1 and 2, whose replacements run in a new client process 3)
// and its window lists every owner of the process (Fault.Procs). The
// history is valid and its hand-offs are counted within and across
// processes.
func TestOwnersShareClientProcesses(t *testing.T) {
	reg, err := subject.NewRegistry(fakeSubject("mem", false))
	if err != nil {
		t.Fatal(err)
	}
	cfg := RunConfig{Subject: "mem", Plan: ownersPlan(), Seed: 3, Duration: 1500 * time.Millisecond}
	deps := Deps{Registry: reg, Dial: noRedis, Nemesis: func(c faults.Clients) (*faults.Nemesis, error) {
		return &faults.Nemesis{
			Faults:   []faults.Fault{faults.Crash(c, "w1")},
			Schedule: faults.Schedule{{At: 500 * time.Millisecond, Duration: 10 * time.Millisecond}},
		}, nil
	}}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	t.Cleanup(func() { awaitRedials(t) })
	res, err := Run(ctx, cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	if res.Report.Verdict != model.Valid || res.Stats.Granted == 0 {
		t.Fatalf("%s: want valid with grants\n%s", summary(res), res.Report)
	}
	clients := map[int]int{}
	var retired []int // by an Abandon, or by an info op cut off by the crash
	for _, o := range res.History.Ops {
		if c, ok := clients[o.Process]; ok && c != o.Client {
			t.Fatalf("process %d in client processes %d and %d", o.Process, c, o.Client)
		}
		clients[o.Process] = o.Client
		if o.Kind == model.Abandon || o.Outcome == model.Info {
			retired = append(retired, o.Process)
		}
	}
	for p, want := range map[int]int{0: 1, 1: 1, 2: 1, 3: 2, 4: 2, 5: 2} {
		if clients[p] != want {
			t.Errorf("process %d ran in client process %d, want %d", p, clients[p], want)
		}
	}
	for p := 6; p < 9; p++ {
		if clients[p] != 3 {
			t.Errorf("replacement %d ran in client process %d, want 3 (the crashed process's successor)", p, clients[p])
		}
	}
	slices.Sort(retired)
	if !slices.Equal(retired, []int{0, 1, 2}) {
		t.Errorf("retired %v, want [0 1 2]: the crash of w1 is its whole process's", retired)
	}
	i := slices.IndexFunc(res.History.Faults, func(f model.Fault) bool { return f.Name == "client-crash" })
	if i < 0 {
		t.Fatalf("faults %v, want the crash", res.History.Faults)
	}
	if procs := res.History.Faults[i].Procs; !slices.Equal(procs[:3], []int{0, 1, 2}) || slices.ContainsFunc(procs, func(p int) bool { return p >= 3 && p < 6 }) {
		t.Errorf("crash window's procs %v, want 0, 1, 2 (and their replacements), none of process 2", procs)
	}
	hand := model.CountHandoffs(res.History)
	if !hand.Grouped || hand.Within == 0 || hand.Across == 0 {
		t.Errorf("hand-offs %+v, want some within and some across processes", hand)
	}
}

// TestOwnersNeedASubjectThatHostsThem: an external subject whose driver
// hosts one owner per process refuses a plan with threads per process.
func TestOwnersNeedASubjectThatHostsThem(t *testing.T) {
	s := fakeSubject("one-owner", false)
	s.Kind = subject.KindExternal
	reg, err := subject.NewRegistry(s)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(t.Context(), RunConfig{Subject: "one-owner", Plan: ownersPlan(), Seed: 1, Duration: time.Second}, Deps{Registry: reg, Dial: noRedis})
	if !errors.Is(err, ErrNoOwners) {
		t.Fatalf("Run: %v, want ErrNoOwners", err)
	}
}

// awaitRedials waits (at most 5 s) for go-redis's background redials of
// noRedis clients to notice their pool closed: each sleeps a second
// between attempts, and a run whose last failed dial came late in it leaves
// one behind for the leak check.
func awaitRedials(t *testing.T) {
	deadline := time.Now().Add(5 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if !strings.Contains(string(buf[:n]), "(*ConnPool).tryDial") {
			return
		}
		if time.Now().After(deadline) {
			t.Error("go-redis redials still running 5 s after the run")
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSharedObjectsNeedASubjectThatKeepsThem: a plan with shared lock
// objects runs only on a subject whose driver can keep them: a Go lock and
// an external subject without the capability refuse it.
func TestSharedObjectsNeedASubjectThatKeepsThem(t *testing.T) {
	goLock := fakeSubject("go-lock", false)
	ext := fakeSubject("no-objects", false)
	ext.Kind = subject.KindExternal
	reg, err := subject.NewRegistry(goLock, ext)
	if err != nil {
		t.Fatal(err)
	}
	plan := ownersPlan()
	plan.ThreadsPerProcess, plan.SharedObjects = 0, true
	for _, name := range []string{"go-lock", "no-objects"} {
		_, err = Run(t.Context(), RunConfig{Subject: name, Plan: plan, Seed: 1, Duration: time.Second}, Deps{Registry: reg, Dial: noRedis})
		if !errors.Is(err, ErrNoSharedObjects) {
			t.Errorf("Run on %s: %v, want ErrNoSharedObjects", name, err)
		}
	}
}
