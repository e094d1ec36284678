package scenario

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
	"github.com/lockcheck/lockcheck/workloads"
)

// TestClientStallHitsEveryOwnerOfTheProcess: client-stall with two owners
// per client process on the Go-port reentrant lock: the stall window lists
// both owners of the stalled process (the fault-allowance checker grants
// the stall to them both), the scenario's expectation holds (the violation
// is the stall's), and the history records each owner's client process.
func TestClientStallHitsEveryOwnerOfTheProcess(t *testing.T) {
	t.Parallel() // a world of its own; the run mostly waits
	if testing.Short() {
		t.Skip("integration test: starts redis-server")
	}
	sc, err := Lookup("client-stall")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	p, err := sc.Prepare(ctx, Options{Subject: "reentrant", Seed: 1, CheckTimeout: 30 * time.Second, ThreadsPerProcess: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Config.Plan.ThreadsPerProcess != 2 {
		t.Fatalf("plan threads per process %d, want 2", p.Config.Plan.ThreadsPerProcess)
	}
	res, err := workloads.Run(ctx, p.Config, p.Deps)
	if err != nil {
		t.Fatal(err)
	}
	assertHealed(t, p.Env)
	expectMet(t, "client-stall", "reentrant", res)
	clients := map[int]int{}
	for _, o := range res.History.Ops {
		clients[o.Process] = o.Client
	}
	i := slices.IndexFunc(res.History.Faults, func(f model.Fault) bool { return f.Name == "client-stall" })
	if i < 0 {
		t.Fatalf("no stall window in %v", res.History.Faults)
	}
	procs := res.History.Faults[i].Procs
	if len(procs) < 2 || clients[procs[0]] == 0 {
		t.Fatalf("stall window procs %v (clients %v): want both owners of the stalled process", procs, clients)
	}
	for _, q := range procs {
		if clients[q] != clients[procs[0]] {
			t.Fatalf("stall window procs %v span client processes %v", procs, clients)
		}
	}
}
