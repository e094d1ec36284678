package model

import (
	"strings"
	"testing"
	"time"
)

// answeredAt is a wire trace where p0 runs on client 0 and its client's
// commands are answered at the times given (ms).
func answeredAt(ms ...float64) *WireTrace {
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}}
	for _, m := range ms {
		evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: "PEXPIRE", Call: msT(m - 1), Return: msT(m)})
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
	w := answeredAt(100, 300, 200)
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
