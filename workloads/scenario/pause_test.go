package scenario

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// pausedRun runs scenario (one that pauses clients) for subject with
// seed for d (0: the scenario's own length), its wire trace kept.
func pausedRun(t *testing.T, scenario, subject string, seed int64, d time.Duration) (*workloads.Result, []model.WireEvent) {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	sc, err := Lookup(scenario)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var trace bytes.Buffer
	p, err := sc.Prepare(ctx, Options{Subject: subject, Seed: seed, Duration: d, WireTrace: &trace})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	res, err := workloads.Run(ctx, p.Config, p.Deps)
	if err != nil {
		t.Fatal(err)
	}
	assertHealed(t, p.Env)
	var evs []model.WireEvent
	sc2 := bufio.NewScanner(&trace)
	for sc2.Scan() {
		var e model.WireEvent
		if err := json.Unmarshal(sc2.Bytes(), &e); err != nil {
			t.Fatalf("wire trace line %q: %v", sc2.Bytes(), err)
		}
		evs = append(evs, e)
	}
	return res, evs
}

// A process pause of a Go lock is real: the lock runs in a process of its
// own, and while that process is stopped its client sends Redis nothing,
// its watchdog included (the wire trace shows no command from it inside
// the window); a correct lock stays within the fault.
func TestProcessPauseStopsTheClient(t *testing.T) {
	// A pause lands only once its target holds: on a loaded machine a run
	// may end before one does (no window then); the next seed runs.
	var res *workloads.Result
	var evs []model.WireEvent
	for seed := int64(3); seed <= 5; seed++ {
		if res, evs = pausedRun(t, "process-pause", "reentrant", seed, 0); pauseWindows(res) > 0 {
			break
		}
	}
	if res.Config.Pauses != workloads.PausesProcess {
		t.Fatalf("pauses = %q, want %q (warnings: %v)", res.Config.Pauses, workloads.PausesProcess, res.Warnings)
	}
	clientOf := map[int]int{}
	cmds := 0
	for _, e := range evs {
		switch e.Kind {
		case model.WireBind:
			clientOf[e.Process] = e.Client
		case model.WireCmd:
			cmds++
		}
	}
	if cmds == 0 {
		t.Fatal("the wire trace holds no command")
	}
	pauses := 0
	for _, f := range res.History.Faults {
		if f.Name != "process-pause" || len(f.Procs) != 1 {
			continue
		}
		pauses++
		c := clientOf[f.Procs[0]]
		const margin = int64(30 * time.Millisecond) // a request already on its way when the process stopped
		for _, e := range evs {
			if e.Kind == model.WireCmd && e.Client == c && e.Call > f.Start+margin && e.Call < f.End-margin {
				t.Errorf("p%d sent %s %s at %s, inside its pause %s", f.Procs[0], e.Cmd, e.Args, time.Duration(e.Call), f)
			}
		}
	}
	if pauses == 0 {
		t.Fatalf("no process-pause window in %d faults, on 3 seeds", len(res.History.Faults))
	}
	if r, ok := res.Report.Result(model.CheckAllowance); !ok || r.Verdict != model.Valid {
		t.Fatalf("fault-allowance: %+v\n%s", r, res.Report)
	}
}

// A watchdog that takes the lock back after a pause (renewal like SET XX,
// no owner check) is caught beyond the fault by a real pause, with no hook
// in the lock: the mutant runs in a process of its own. pause-mix shows it:
// a pause early in one of its long holds leaves section time after the
// pause, so the resumed watchdog renews before its holder's unlock.
// (process-pause's sections end during the pause, so the unlock and the
// renewal race on resuming: 0 of 4 seeds under make test's load once.)
func TestPauseMixCatchesRetakingRenewal(t *testing.T) {
	for seed := int64(1); ; seed++ {
		res, _ := pausedRun(t, "pause-mix", "mutant-renew-retakes", seed, 0)
		r, _ := res.Report.Result(model.CheckAllowance)
		if r.Verdict == model.Invalid {
			t.Logf("caught on seed %d", seed)
			return
		}
		t.Logf("seed %d: not caught, %d pauses landed", seed, pauseWindows(res))
		if seed == 3 {
			t.Fatalf("not caught beyond the fault on seeds 1 to 3: %s", res.Report)
		}
	}
}

// pauseWindows counts res's windows of process pauses and stalls.
func pauseWindows(res *workloads.Result) int {
	n := 0
	for _, f := range res.History.Faults {
		if f.Name == "process-pause" || f.Name == "client-stall" {
			n++
		}
	}
	return n
}

// After a pause costs a process its watchdog hold (its release answers
// "not held"), its next hold is a long one that only renewals keep: a
// lock that keeps per-handle renewal state across holds shows there what
// the lapse left. The rule holds on the history of a pause-mix run, and
// the mutant whose late unlock leaves its renewal entry behind is caught
// beyond the fault by it.
func TestALapseIsFollowedByALongHold(t *testing.T) {
	for seed := int64(1); ; seed++ {
		res, _ := pausedRun(t, "pause-mix", "mutant-late-unlock-leaves-renewal", seed, 0)
		lapses := lapsesFollowedByLongHolds(t, res)
		r, _ := res.Report.Result(model.CheckAllowance)
		if r.Verdict == model.Invalid {
			t.Logf("caught on seed %d after %d lapses", seed, lapses)
			return
		}
		t.Logf("seed %d: not caught, %d lapses, %d pauses landed", seed, lapses, pauseWindows(res))
		if seed == 3 {
			t.Fatalf("not caught beyond the fault on seeds 1 to 3: %s", res.Report)
		}
	}
}

// lapsesFollowedByLongHolds checks that each process whose release
// answered "not held" next held the lock (its next section) longer than
// two watchdog leases, and returns how many such lapses res has.
func lapsesFollowedByLongHolds(t *testing.T, res *workloads.Result) int {
	t.Helper()
	lease := res.Subject.WatchdogLease
	lapsed := map[int]model.Op{}
	n := 0
	for _, o := range res.History.Ops {
		switch {
		case o.Kind == model.Release && o.Outcome == model.Fail:
			lapsed[o.Process] = o
			n++
		case o.Kind == model.Section && o.Outcome == model.OK:
			if l, ok := lapsed[o.Process]; ok && time.Duration(o.Return-o.Call) < 2*lease {
				t.Errorf("p%d's release at %s answered not held, and its next section lasted %s, under two leases (%s)",
					o.Process, time.Duration(l.Return), time.Duration(o.Return-o.Call), 2*lease)
			}
			delete(lapsed, o.Process)
		}
	}
	return n
}
