package workloads

import (
	"testing"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
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

// TestReconnectedCountsWhatTheCutClosed: a client is reconnected once it
// has after the cut as many connections ready (opened after it, and past
// their handshake) as the cut closed; another client's connections, and
// opens during the cut, do not count.
func TestReconnectedCountsWhatTheCutClosed(t *testing.T) {
	tr := &wireTracer{procs: map[int]int{}}
	conn := int64(0)
	ev := func(kind string, client int, at int64) {
		conn++
		tr.write(model.WireEvent{Kind: kind, Client: client, Conn: conn, Call: at})
	}
	cmd := func(c int64, name string, at int64) {
		tr.write(model.WireEvent{Kind: model.WireCmd, Client: 0, Conn: c, Cmd: name, Call: at, Return: at + 1})
	}
	ev(model.WireOpen, 0, 10)
	ev(model.WireOpen, 0, 20)
	ev(model.WireClose, 0, 100) // the cut [100, 200] closes both
	ev(model.WireClose, 0, 101)
	ev(model.WireOpen, 0, 150) // during the cut: not a reconnection
	ev(model.WireOpen, 1, 210) // another client's
	if tr.reconnected(0, 100, 200) {
		t.Fatal("reconnected with no connection opened after the cut")
	}
	ev(model.WireOpen, 0, 220) // conn 7
	ev(model.WireOpen, 0, 221) // conn 8
	cmd(7, "PING", 222)
	cmd(8, "AUTH", 223)
	cmd(8, "CLIENT", 224)
	if tr.reconnected(0, 100, 200) {
		t.Fatal("reconnected with one of two connections past its handshake")
	}
	cmd(8, "EVAL", 230)
	if !tr.reconnected(0, 100, 200) {
		t.Fatal("not reconnected with both connections back and in use")
	}
	if !(*wireTracer)(nil).reconnected(0, 100, 200) {
		t.Fatal("a run without a trace waits for evidence it cannot have")
	}
}
