package permits

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// A stalled worker calls nothing until its window ends; a crashed one's
// process calls nothing again, and a fresh process replaces it from the
// next round on; both windows are in the history with the process they
// hit, and the run stays valid.
func TestNemesisStallsAndCrashesWorkers(t *testing.T) {
	plan := DefaultPlan(3)
	plan.Rounds, plan.SetDelay, plan.Round, plan.Handovers = 2, 200*time.Millisecond, 600*time.Millisecond, 0
	nem := func(c faults.Clients) (*faults.Nemesis, error) {
		if got := c.Targets(); !slices.Equal(got, []string{"w1", "w2", "w3", "w4", "w5"}) {
			t.Errorf("targets = %v", got)
		}
		return &faults.Nemesis{
			Faults: []faults.Fault{faults.Crash(c, "w2"), faults.Stall(c, "w1")},
			Schedule: faults.Schedule{
				{At: 300 * time.Millisecond, Duration: 5 * time.Millisecond, Fault: 0},
				{At: 400 * time.Millisecond, Duration: 400 * time.Millisecond, Fault: 1},
			},
		}, nil
	}
	dial := func(int) (redis.UniversalClient, error) {
		return redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}), nil
	}
	h, err := Run(t.Context(), dial, memSubject(newMemSems(false)), plan, "nemesis-test", nem)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(h.Faults) != 2 || !slices.Equal(h.Faults[0].Procs, []int{2}) || !slices.Equal(h.Faults[1].Procs, []int{1}) {
		t.Fatalf("faults = %+v, want the crash of process 2 and the stall of process 1", h.Faults)
	}
	crash, stall := h.Faults[0], h.Faults[1]
	second := plan.roundStart(1).Nanoseconds()
	// A call that passed its worker's checks just as the fault struck may
	// start a little after the window opened (a goroutine descheduled on a
	// busy machine): slack.
	const slack = int64(100 * time.Millisecond)
	replaced := false
	for _, o := range h.Ops {
		switch {
		case o.Process == 1 && o.Call > stall.Start+slack && o.Call < stall.End-int64(time.Millisecond):
			t.Errorf("stalled process 1 called %s at %d, inside its stall [%d, %d]", o.Kind, o.Call, stall.Start, stall.End)
		case o.Process == 2 && o.Call > crash.End+slack:
			t.Errorf("crashed process 2 called %s at %d, after its crash at %d", o.Kind, o.Call, crash.Start)
		case o.Process > plan.Workers:
			replaced = true
			if o.Call < second {
				t.Errorf("the replacement p%d called %s at %d, before the next round at %d", o.Process, o.Kind, o.Call, second)
			}
		}
	}
	if !replaced {
		t.Error("no fresh process replaced the crashed worker in the next round")
	}
	if rep := model.Check(h, Options()); rep.Verdict != model.Valid {
		t.Fatalf("verdict %s, want valid:\n%s", rep.Verdict, rep)
	}
}

// A target that is no worker is an error naming the targets.
func TestClientsRejectUnknownTargets(t *testing.T) {
	c := clients{rec: &recorder{}, procs: newProcSet(3)}
	for _, target := range []string{"w0", "w3", "c1", "x"} {
		if err := c.Stall(context.Background(), target); err == nil {
			t.Errorf("Stall(%q) = nil, want an error", target)
		}
	}
	if err := c.Stall(context.Background(), "w2"); err != nil {
		t.Fatal(err)
	}
	if err := c.Unstall(context.Background(), "w2"); err != nil {
		t.Fatal(err)
	}
}

// A request in flight across a fault may run when the fault heals: an info
// op that overlaps a window may take effect until the heal plus an op
// timeout.
func TestInfoDeadlinesStretchOverFaults(t *testing.T) {
	r := &recorder{timeout: time.Second}
	r.ops = []model.Op{
		{Process: 1, Kind: model.SemAcquire, Call: 100, Return: 200, Outcome: model.Info, Deadline: 200 + int64(time.Second)},
		{Process: 2, Kind: model.SemAcquire, Call: 5e9, Return: 5e9 + 100, Outcome: model.Info, Deadline: 5e9 + 100 + int64(time.Second)},
	}
	r.fault(model.Fault{Name: "proxy-blackhole", Start: 150, End: 3e9})
	r.stretchDeadlines()
	if got, want := r.ops[0].Deadline, int64(3e9)+int64(time.Second); got != want {
		t.Errorf("overlapping info op's deadline = %d, want %d", got, want)
	}
	if got, want := r.ops[1].Deadline, int64(5e9+100)+int64(time.Second); got != want {
		t.Errorf("later info op's deadline = %d, want %d (unchanged)", got, want)
	}
}

// A replacement revives a crashed worker under a fresh process id, unless
// the worker crashed again while its replacement started.
func TestReviveAfterCrash(t *testing.T) {
	r := &recorder{workers: 5, base: time.Now()}
	r.retire(2)
	gen := r.crashCount(2)
	r.retire(2) // crashed again while the replacement started
	r.revive(2, gen)
	if !r.isRetired(2) || r.process(2) != 2 {
		t.Fatalf("revived over a later crash: retired %v, process %d", r.isRetired(2), r.process(2))
	}
	r.revive(2, r.crashCount(2))
	if all := r.idsDuring(2, 0, r.now(), false); r.isRetired(2) || r.process(2) != 6 || !slices.Equal(all, []int{2, 6}) {
		t.Fatalf("revived: retired %v, process %d, ids %v; want a fresh process 6", r.isRetired(2), r.process(2), all)
	}
}

// A fault's processes are the ids its target had in its window: a fault on
// the worker (a crash) spares the replacement that began after it struck,
// a fault on its link does not.
func TestFaultProcsAreTheWindows(t *testing.T) {
	r := &recorder{workers: 5, past: map[int][]idSpan{2: {{id: 6, from: 100}, {id: 7, from: 202, revived: true}}}}
	for _, c := range []struct {
		target     string
		start, end int64
		want       []int
	}{
		{"w2", 200, 205, []int{6}},
		{"c2", 200, 205, []int{6, 7}},
		{"c2", 50, 150, []int{2, 6}},
		{"w2", 300, 400, []int{7}},
		{"c9", 0, 10, []int{9}},
		{"redis-1", 0, 10, nil},
	} {
		if got := r.procsOf(c.target, c.start, c.end); !slices.Equal(got, c.want) {
			t.Errorf("procsOf(%s, %d, %d) = %v, want %v", c.target, c.start, c.end, got, c.want)
		}
	}
}
