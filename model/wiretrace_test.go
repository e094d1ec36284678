package model

import (
	"strings"
	"testing"
	"time"
)

// answeredAt is a wire trace where p0 runs on client 0, renews lock L every
// 500 ms until the kill at 2000 ms, and is then answered at the times given
// (ms); p1, on client 1, renews its hold every 500 ms.
func answeredAt(ms ...float64) *WireTrace {
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}}
	for m := 500.0; m < 2000 && len(ms) > 0; m += 500 {
		ms = append(ms, m)
	}
	for _, m := range ms {
		evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: "PEXPIRE", Args: "lockcheck:x:L 1500", Call: msT(m - 1), Return: msT(m)})
	}
	for m := 3500.0; m < 6000; m += 500 { // p1's watchdog
		evs = append(evs, WireEvent{Kind: WireCmd, Client: 1, Cmd: "PEXPIRE", Args: "lockcheck:x:L 1500", Call: msT(m - 1), Return: msT(m)})
	}
	return NewWireTrace(evs)
}

// A drop fault's reconnection is what the wire trace recorded: from the
// fault's end to the holder's first answer after it. The kill of 200 ms
// and a lease of 1.5 s leave a hold safe unless requests fail for 1/3 of
// a lease (less the drift slack) from the fault's start.
func TestReconnectionFromTheWire(t *testing.T) {
	kill := aFault("client-conn-kill", "c0", 2000, 2200, 0)
	for _, c := range []struct {
		name   string
		wire   *WireTrace
		beyond bool
	}{
		{"no trace: the default reconnection allows it", nil, false},
		{"answered 50 ms after the kill: too short", answeredAt(1900, 2250), true},
		{"answered 300 ms after the kill: long enough", answeredAt(1900, 2500, 2600), false},
		{"answered just under", answeredAt(2440), true},
		{"nothing answered after the kill: nothing waited on a connection", answeredAt(1900), true},
		{"the trace does not know p0's client: the default", NewWireTrace(nil), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: stalled(3100, Fail), Faults: []Fault{kill}}
			r := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: c.wire})
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
			if c.beyond && !strings.Contains(r.Examples[0].Cause+r.Examples[0].Summary, "lasted") {
				t.Errorf("the example does not say the fault was too short:\n%s", r)
			}
		})
	}
}

func TestWireTraceReconnected(t *testing.T) {
	w := NewWireTrace([]WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1},
		{Kind: WireCmd, Client: 0, Call: msT(99), Return: msT(100)}, {Kind: WireCmd, Client: 0, Call: msT(299), Return: msT(300)},
		{Kind: WireCmd, Client: 0, Call: msT(199), Return: msT(200)}})
	for _, c := range []struct {
		p, end          int64
		at              int64
		answered, known bool
	}{
		{0, msT(150), msT(200), true, true},
		{0, msT(300), 0, false, true},
		{0, msT(99), msT(100), true, true},
		{1, msT(0), 0, false, true},
		{7, msT(0), 0, false, false},
	} {
		at, answered, known := w.Reconnected(int(c.p), c.end)
		if at != c.at || answered != c.answered || known != c.known {
			t.Errorf("Reconnected(p%d, %d) = %d, %v, %v; want %d, %v, %v", c.p, c.end, at, answered, known, c.at, c.answered, c.known)
		}
	}
}

func TestWireEventQuote(t *testing.T) {
	e := WireEvent{Kind: WireCmd, Process: 0, Cmd: "PEXPIRE", Args: "sl 1500", Reply: "1", Call: msT(3210), Return: msT(3220)}
	if got, want := e.Quote(), "p0 sent PEXPIRE sl 1500 at 3.210000s, answered 1 at 3.220000s"; got != want {
		t.Errorf("Quote = %q, want %q", got, want)
	}
}

// A watchdog hold whose client sends nothing on the lock for longer than
// the lease, with no fault on its process, gave up: a finding beyond the
// faults, before any other process is granted. A client held up by a fault
// on its process, or renewing on time, is not.
func TestWatchdogGaveUp(t *testing.T) {
	ops := []Op{aAcq(0, 0, 5), aRel(0, 4000, 4005, OK)}
	renewals := func(client int, from, to float64) []WireEvent {
		var evs []WireEvent
		for m := from; m < to; m += 500 {
			evs = append(evs, WireEvent{Kind: WireCmd, Client: client, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500", Call: msT(m), Return: msT(m + 1)})
		}
		return evs
	}
	bind := WireEvent{Kind: WireBind, Client: 0, Process: 0}
	for _, c := range []struct {
		name   string
		evs    []WireEvent
		faults []Fault
		beyond bool
	}{
		{"renewed every 500 ms", append(renewals(0, 500, 4000), bind), nil, false},
		{"renewals stop at 1.5 s", append(renewals(0, 500, 1600), bind), nil, true},
		{"a silence of just under a lease", append(append(renewals(0, 500, 1100), renewals(0, 2500, 4000)...), bind), nil, false},
		{"the silence is its own stall", append(renewals(0, 500, 1600), bind), []Fault{aFault("client-stall", "w0", 1500, 3900, 0)}, false},
		{"the silence is another process's stall", append(renewals(0, 500, 1600), bind), []Fault{aFault("client-stall", "w1", 1500, 3900, 1)}, true},
		{"a kill the client recovers from at once, then nothing", append(append(renewals(0, 500, 2001), bind),
			WireEvent{Kind: WireCmd, Client: 0, Cmd: "PING", Call: msT(2010), Return: msT(2011)}), []Fault{aFault("client-conn-kill", "c0", 2000, 2001, 0)}, true},
		{"other keys only", append([]WireEvent{bind, {Kind: WireCmd, Client: 0, Cmd: "GET", Args: "app:LL", Call: msT(1000), Return: msT(1001)}}, renewals(0, 500, 600)...), nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: ops, Faults: c.faults}
			r := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.evs)})
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
			if c.beyond && !strings.Contains(r.Examples[0].Summary, "watchdog gave up") {
				t.Errorf("not the watchdog's finding:\n%s", r)
			}
		})
	}
}
