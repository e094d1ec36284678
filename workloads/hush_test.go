package workloads

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
	"github.com/redis/go-redis/v9"
)

// TestOutageHushesTheClientsOtherOwners: a long hold with an outage in a
// driver process of two owners. From the long hold's section to the end of
// its outage (the reconnect fault), the other owner of that driver process
// starts no acquire or release, while the owners of the other process go on; the run stays
// valid and the long holder's process is not retired.
func TestOutageHushesTheClientsOtherOwners(t *testing.T) {
	s := startRedis(t)
	reg := externalRegistry(t, goOwnersDriver("go-owners"))
	plan := ownersPlan()
	plan.ThreadsPerProcess = 2
	plan.Locks = []string{"l", "m"} // the others have a lock to go on with
	plan.Phases = &Phases{Churn: Range{Min: ms(200), Max: ms(300)}, LongHold: Scale{2.2, 2.4}, Outage: Scale{0.36, 0.44}, LongHoldFirst: true}
	deps, cuts := wiredDeps(t, s, plan.Processes)
	deps.Registry = reg
	res := run(t, s, RunConfig{Subject: "go-owners", Plan: plan, Seed: 4, Duration: 3 * time.Second, WatchdogLease: ms(500)}, deps)
	t.Log(summary(res))
	if res.Report.Verdict != model.Valid {
		t.Fatalf("%s\n%s", summary(res), res.Report)
	}
	if cuts.Load() == 0 {
		t.Fatal("no outage: the long hold never cut its client")
	}
	hold, cut := longHoldAndCut(t, res.History, time.Duration(plan.Phases.LongHold.Min*float64(ms(500))))
	var others int
	for _, o := range res.History.Ops {
		if o.Process == hold.Process || o.Call < hold.Call || o.Call > cut.End || (o.Kind != model.Acquire && o.Kind != model.Release) {
			continue // (a section of a hold granted before the hush runs on)
		}
		if o.Client == hold.Client {
			t.Errorf("op %+v of the long holder's client process began inside its hush [%d, %d]", o, hold.Call, cut.End)
		}
		others++
	}
	if others == 0 {
		t.Error("no op of the other client process began during the hush: it must go on")
	}
	for _, o := range res.History.Ops {
		if o.Client == hold.Client && (o.Kind == model.Abandon || o.Outcome == model.Info) {
			t.Errorf("the long holder's client process was retired: %+v", o)
		}
	}
}

// wiredDeps dials client connection i through a faults.Wire of its own in
// front of s, which a driver process dials too and which Reconnect cuts
// (counted in cuts) and traces.
func wiredDeps(t *testing.T, s *faults.Server, clients int) (Deps, *atomic.Int32) {
	t.Helper()
	wires := make([]*faults.Wire, clients)
	for i := range wires {
		w, err := faults.StartWire(fmt.Sprintf("c%d", i), s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Close() })
		wires[i] = w
	}
	cuts := &atomic.Int32{}
	return Deps{
		Dial: func(_ context.Context, i int) (redis.UniversalClient, error) {
			o := s.Options()
			o.Addr = wires[i%clients].Addr()
			return redis.NewClient(o), nil
		},
		Reconnect: func(i int, outage time.Duration) { cuts.Add(1); wires[i%clients].Cut(outage) },
		Wire:      func(i int) faults.ClientWire { return wires[i%clients] },
	}, cuts
}

// longHoldAndCut finds the first section at least long and the reconnect
// fault inside it.
func longHoldAndCut(t *testing.T, h *model.History, long time.Duration) (model.Op, model.Fault) {
	t.Helper()
	for _, o := range h.Ops {
		if o.Kind != model.Section || o.Outcome != model.OK || time.Duration(o.Return-o.Call) < long {
			continue
		}
		for _, f := range h.Faults {
			if f.Name == "reconnect" && f.Start >= o.Call && f.End <= o.Return {
				return o, f
			}
		}
		t.Fatalf("the long hold %+v has no reconnect fault inside it (%v)", o, h.Faults)
	}
	t.Fatalf("no section of %v or longer", long)
	return model.Op{}, model.Fault{}
}

// TestHushGate: a hush holds back every owner but the one that made it,
// until lifted (once, however often lift is called); a second hush while
// one is in place changes nothing.
func TestHushGate(t *testing.T) {
	var g hushGate
	a, b := &worker{}, &worker{}
	if g.holding(a) != nil || g.holding(b) != nil {
		t.Fatal("an unhushed gate holds an owner back")
	}
	lift := g.hush(a)
	if g.holding(a) != nil {
		t.Error("the owner that hushed is held back")
	}
	ch := g.holding(b)
	if ch == nil {
		t.Fatal("another owner is not held back")
	}
	g.hush(b)() // a second hush, lifted at once: no effect
	if g.holding(b) == nil {
		t.Fatal("a second hush lifted the first")
	}
	lift()
	lift()
	select {
	case <-ch:
	default:
		t.Fatal("lift did not release the owners held back")
	}
	if g.holding(b) != nil {
		t.Error("the gate still holds back after lift")
	}
}
