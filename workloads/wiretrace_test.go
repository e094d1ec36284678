package workloads

import (
	"testing"

	"github.com/lockcheck/lockcheck/faults"
)

// TestDropUnseenWires: proxies that see only in-process clients trace no
// run whose clients are in processes of their own (and the run says so);
// a single Redis's Wires, which every process dials, trace every run.
func TestDropUnseenWires(t *testing.T) {
	set := faults.NewWireSet("c0", nil)
	defer set.Close()
	wire := func(int) faults.ClientWire { return set }
	for _, c := range []struct {
		inProcess, ownProcess, kept bool
	}{
		{inProcess: true, ownProcess: true, kept: false},
		{inProcess: true, ownProcess: false, kept: true},
		{inProcess: false, ownProcess: true, kept: true},
		{inProcess: false, ownProcess: false, kept: true},
	} {
		deps := Deps{Wire: wire, WireInProcess: c.inProcess}
		warning := dropUnseenWires(&deps, c.ownProcess)
		if kept := deps.Wire != nil; kept != c.kept || (warning == "") != kept {
			t.Errorf("%+v: Wire kept %v, warning %q", c, kept, warning)
		}
	}
	if deps := (Deps{WireInProcess: true}); dropUnseenWires(&deps, true) != "" {
		t.Error("a run with no Wires at all warned of dropping them")
	}
}
