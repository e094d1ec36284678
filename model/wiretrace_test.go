package model

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// reconnectedAt is a wire trace where p0 runs on client 0 and renews lock
// L every 500 ms until the kill at 2000 ms, which closes its connection 1;
// it then opens connection 2 and is first answered there at the time given
// (ms; 0: it opens none), and renews on every 500 ms until a renewal meets
// p1's hold (granted at 3100). p1, on client 1, renews its hold every
// 500 ms.
func reconnectedAt(ms float64) *WireTrace {
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1},
		{Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1)}, {Kind: WireClose, Client: 0, Conn: 1, Call: msT(2000)}}
	renew := func(client int, conn int64, m float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: client, Conn: conn, Cmd: "PEXPIRE", Args: "lockcheck:x:L 1500", Call: msT(m - 1), Return: msT(m)}
	}
	for m := 500.0; m < 2000; m += 500 {
		evs = append(evs, renew(0, 1, m))
	}
	if ms > 0 {
		evs = append(evs, WireEvent{Kind: WireOpen, Client: 0, Conn: 2, Call: msT(ms - 5)}, renew(0, 2, ms))
		// Its watchdog renews on until a renewal finds p1's hold (3100).
		for m := ms + 500; m < 3600; m += 500 {
			evs = append(evs, renew(0, 2, m))
		}
	}
	for m := 3500.0; m < 6000; m += 500 {
		evs = append(evs, renew(1, 3, m))
	}
	return NewWireTrace(evs)
}

// A drop fault's reconnection is what the wire trace recorded: from the
// fault's end to the holder's first answer on a connection opened after
// the fault closed one. The kill of 200 ms and a lease of 1.5 s leave a
// hold safe unless requests fail for 1/3 of a lease (less the drift slack)
// from the fault's start.
func TestReconnectionFromTheWire(t *testing.T) {
	kill := aFault("client-conn-kill", "c0", 2000, 2200, 0)
	for _, c := range []struct {
		name   string
		wire   *WireTrace
		beyond bool
	}{
		{"no trace: the default reconnection allows it", nil, false},
		{"back 50 ms after the kill: too short", reconnectedAt(2250), true},
		{"back inside the fault's window: no reconnection", reconnectedAt(2100), true},
		{"back 300 ms after the kill: long enough", reconnectedAt(2500), false},
		{"back just under", reconnectedAt(2440), true},
		{"no new connection: it tried nothing", reconnectedAt(0), true},
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
		{Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1)},
		{Kind: WireCmd, Client: 0, Conn: 1, Call: msT(99), Return: msT(100)},
		{Kind: WireClose, Client: 0, Conn: 1, Call: msT(150)},
		{Kind: WireOpen, Client: 0, Conn: 2, Call: msT(250)},
		{Kind: WireCmd, Client: 0, Conn: 2, Call: msT(299), Return: msT(300)},
		{Kind: WireOpen, Client: 1, Conn: 3, Call: msT(1)},
		{Kind: WireCmd, Client: 1, Conn: 3, Call: msT(299), Return: msT(300)}})
	for _, c := range []struct {
		p          int
		start, end int64
		at         int64
		known      bool
	}{
		{0, msT(140), msT(200), msT(300), true}, // closed in the window, back at 300
		{0, msT(140), msT(400), msT(400), true}, // back inside the window
		{0, msT(160), msT(200), msT(200), true}, // nothing closed in the window
		{1, msT(0), msT(500), msT(500), true},   // never closed
		{7, msT(0), msT(10), 0, false},
	} {
		at, known := w.Reconnected(c.p, c.start, c.end)
		if at != c.at || known != c.known {
			t.Errorf("Reconnected(p%d, %d, %d) = %d, %v; want %d, %v", c.p, c.start, c.end, at, known, c.at, c.known)
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
			expectGaveUp(t, CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.evs)}), c.beyond)
		})
	}
}

// A renewal lost in flight with its connection (the kill at 2000 ms closes
// connection 1 while a PEXPIRE sent at 1999 ms is unanswered) is learned
// only at the client's reply timeout: the drop's reconnection lasts until
// then, when the client has one; a client that fails such requests at once
// (ReplyTimeout 0) keeps the reconnection the trace shows.
func TestLostInFlightWaitsOutTheReplyTimeout(t *testing.T) {
	kill := aFault("client-conn-kill", "c0", 2000, 2001, 0)
	lostAt := func(answered bool) *WireTrace {
		w := reconnectedAt(2050)
		evs := slices.Clone(w.Events)

		lost := WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "PEXPIRE", Args: "lockcheck:x:L 1500", Call: msT(1999)}
		if answered {
			lost.Return = msT(1999.5)
		}
		return NewWireTrace(append(evs, lost))
	}
	for _, c := range []struct {
		name    string
		wire    *WireTrace
		timeout time.Duration
		beyond  bool
	}{
		{"nothing lost: back 50 ms after the kill", reconnectedAt(2050), time.Second, true},
		{"a renewal lost in flight, a 1 s reply timeout", lostAt(false), time.Second, false},
		{"a renewal lost in flight, a reply timeout just short", lostAt(false), 440 * time.Millisecond, true},
		{"a renewal lost in flight, a reply timeout just long enough", lostAt(false), 480 * time.Millisecond, false},
		{"a renewal lost in flight, a client that learns at once", lostAt(false), 0, true},
		{"the renewal was answered before the close", lostAt(true), time.Second, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: stalled(3100, Fail), Faults: []Fault{kill}}
			r := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: c.wire, ReplyTimeout: c.timeout})
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
		})
	}
}

func TestWireTraceLostInFlight(t *testing.T) {
	w := NewWireTrace([]WireEvent{{Kind: WireBind, Client: 0, Process: 0},
		{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Call: msT(90)},
		{Kind: WireClose, Client: 0, Conn: 1, Call: msT(100)},
		{Kind: WireCmd, Client: 0, Conn: 2, Cmd: "SUBSCRIBE", Call: msT(10)},
		{Kind: WireCmd, Client: 0, Conn: 2, Cmd: "PING", Call: msT(20)},
		{Kind: WireClose, Client: 0, Conn: 2, Call: msT(200)},
		{Kind: WireCmd, Client: 0, Conn: 3, Cmd: "EVAL", Call: msT(290), Return: msT(291)},
		{Kind: WireClose, Client: 0, Conn: 3, Call: msT(300)}})
	for _, c := range []struct {
		p          int
		start, end int64
		closed     int64
		ok         bool
	}{
		{0, msT(50), msT(150), msT(100), true}, // conn 1 closed with EVAL unanswered
		{0, msT(150), msT(250), 0, false},      // conn 2 had subscribed
		{0, msT(250), msT(350), 0, false},      // conn 3's request was answered
		{0, msT(0), msT(400), msT(100), true},  // the latest loss in the window
		{1, msT(0), msT(400), 0, false},        // the trace does not know p1
	} {
		closed, ok := w.LostInFlight(c.p, c.start, c.end)
		if closed != c.closed || ok != c.ok {
			t.Errorf("LostInFlight(p%d, %d, %d) = %d, %v; want %d, %v", c.p, c.start, c.end, closed, ok, c.closed, c.ok)
		}
	}
}

// A watchdog hold whose client sent nothing on the lock since an acquire
// of the hold, with no fault holding the client up for a whole lease from
// there, was never renewed (the watchdog never started, or its entry was
// lost), whatever faults came later; one that renewed first, or whose
// renewal a fault on its process could have failed before the lease ran
// out, gave up. Both are findings.
func TestWatchdogNeverRenewed(t *testing.T) {
	bind := WireEvent{Kind: WireBind, Client: 0, Process: 0}
	cmd := func(m float64, reply string) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500", Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	unanswered := cmd(500, "")
	unanswered.Return = 0
	closed := func(m float64) WireEvent { return WireEvent{Kind: WireClose, Client: 0, Conn: 1, Call: msT(m)} }
	ping := WireEvent{Kind: WireCmd, Client: 0, Cmd: "PING", Call: msT(510), Return: msT(511)}
	for _, c := range []struct {
		name    string
		reentry bool
		evs     []WireEvent
		faults  []Fault
		shape   Shape
		mech    string // how it fell silent (Example.Mechanism)
	}{
		{"nothing after the grant", false, []WireEvent{bind, cmd(1, "nil")}, nil, ShapeWatchdogNeverRenewed, ""},
		{"renewed twice, then nothing", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "1"), cmd(1000, "1")}, nil, ShapeWatchdogGaveUp, MechanismAfterAnswer},
		{"a renewal refused, then nothing", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "0")}, nil, ShapeWatchdogGaveUp, MechanismAfterAnswer},
		{"a renewal answered with an error, then nothing", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "LOADING Redis is loading the dataset in memory")}, nil,
			ShapeWatchdogGaveUp, MechanismAfterFailure},
		{"a renewal never answered, then nothing", false, []WireEvent{bind, cmd(1, "nil"), unanswered}, nil, ShapeWatchdogGaveUp, MechanismAfterFailure},
		{"renewed, then its connection closed before the next renewal was due", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "1"), closed(700)}, nil,
			ShapeWatchdogGaveUp, MechanismAfterFailure},
		{"renewed, its connection closed after its first renewal was due", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "1"), closed(1400)}, nil,
			ShapeWatchdogGaveUp, MechanismAfterFailure},
		{"renewed, its connection closed after its second renewal was due", false, []WireEvent{bind, cmd(1, "nil"), cmd(500, "1"), closed(1600)}, nil,
			ShapeWatchdogGaveUp, MechanismAfterAnswer},
		{"nothing after the grant, a kill when the first renewal was due", false, []WireEvent{bind, cmd(1, "nil"), ping},
			[]Fault{aFault("client-conn-kill", "c0", 500, 501, 0)}, ShapeWatchdogGaveUp, MechanismAfterAnswer},
		{"nothing after the grant, a kill just inside the lease", false, []WireEvent{bind, cmd(1, "nil"), ping},
			[]Fault{aFault("client-conn-kill", "c0", 1500, 1501, 0)}, ShapeWatchdogGaveUp, MechanismAfterAnswer},
		{"nothing after the grant, a kill once the lease ran out", false, []WireEvent{bind, cmd(1, "nil"), ping},
			[]Fault{aFault("client-conn-kill", "c0", 1600, 1601, 0)}, ShapeWatchdogNeverRenewed, ""},
		{"nothing after the grant, a stall once the lease ran out", false, []WireEvent{bind, cmd(1, "nil")},
			[]Fault{aFault("client-stall", "w0", 1700, 2500, 0)}, ShapeWatchdogNeverRenewed, ""},
		{"renewed, then nothing after a re-entry", true, []WireEvent{bind, cmd(1, "nil"), cmd(500, "1"), cmd(1000, "nil")}, nil, ShapeWatchdogNeverRenewed, ""},
		{"renewed after a re-entry, then nothing", true, []WireEvent{bind, cmd(1, "nil"), cmd(1000, "nil"), cmd(1500, "1")}, nil, ShapeWatchdogGaveUp, MechanismAfterAnswer},
	} {
		t.Run(c.name, func(t *testing.T) {
			ops := []Op{aAcq(0, 0, 5), aRel(0, 4000, 4005, OK)}
			if c.reentry {
				ops = []Op{aAcq(0, 0, 5), aAcq(0, 999, 1002), aRel(0, 1100, 1101, OK), aRel(0, 4000, 4005, OK)}
			}
			r := CheckBeyond(&History{Ops: ops, Faults: c.faults}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.evs)})
			if r.Verdict != Invalid || len(r.Examples) == 0 {
				t.Fatalf("want a finding:\n%s", r)
			}
			if got := r.Examples[0]; got.Shape != c.shape || got.Mechanism != c.mech {
				t.Fatalf("shape %s.%s, want %s.%s:\n%s", got.Shape, got.Mechanism, c.shape, c.mech, r)
			}
		})
	}
}

// A renewal killed in flight (connection 1 closed at 2000 ms with it
// unanswered) is learned at the client's 1 s reply timeout; a watchdog
// then tries again. One that tries within a lease of that did not give
// up; one that tries later, or sends nothing more while its holder works
// on, did, although the kill could have cost it the hold, and however
// often later kills closed its idle connections.
func TestWatchdogGaveUpAfterALostRenewal(t *testing.T) {
	ops := []Op{aAcq(0, 0, 5), aRel(0, 5000, 5005, Fail)}
	renew := func(conn int64, m float64, answered bool) WireEvent {
		e := WireEvent{Kind: WireCmd, Client: 0, Conn: conn, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500", Call: msT(m)}
		if answered {
			e.Return = msT(m + 1)
		}
		return e
	}
	lost := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1)},
		renew(1, 500, true), renew(1, 1000, true), renew(1, 1500, true), renew(1, 2000, false),
		{Kind: WireClose, Client: 0, Conn: 1, Call: msT(2000.5)},
		{Kind: WireOpen, Client: 0, Conn: 2, Call: msT(2010)}, {Kind: WireCmd, Client: 0, Conn: 2, Cmd: "PING", Call: msT(2011), Return: msT(2012)}}
	kill := aFault("client-conn-kill", "c0", 2000, 2001, 0)
	// idleKill closes connection 2, idle, at ms and its client opens the next.
	idleKill := func(ms float64) []WireEvent {
		return []WireEvent{{Kind: WireClose, Client: 0, Conn: 2, Call: msT(ms + 0.5)}, {Kind: WireOpen, Client: 0, Conn: 3, Call: msT(ms + 5)},
			{Kind: WireCmd, Client: 0, Conn: 3, Cmd: "PING", Call: msT(ms + 6), Return: msT(ms + 7)}}
	}
	for _, c := range []struct {
		name   string
		evs    []WireEvent
		beyond bool
	}{
		{"tried again 600 ms after its reply timeout", append(slices.Clone(lost), renew(2, 3600, true)), false},
		{"tried again just inside a lease after its reply timeout", append(slices.Clone(lost), renew(2, 4450, true)), false},
		{"tried again just past a lease after its reply timeout", append(slices.Clone(lost), renew(2, 4600, true)), true},
		{"silent but for kills that closed idle connections", append(slices.Clone(lost), idleKill(3800)...), true},
		{"silent until its release, 2 s later", slices.Clone(lost), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			faults := []Fault{kill}
			if strings.Contains(c.name, "idle") {
				faults = append(faults, aFault("client-conn-kill", "c0", 3800, 3801, 0))
			}
			h := &History{Ops: ops, Faults: faults}
			expectGaveUp(t, CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.evs), ReplyTimeout: time.Second}), c.beyond)
		})
	}
}

// A drop's lapse assumes the holder renewed a third of a lease before the
// fault, unless the trace shows its last answered command on the lock came
// earlier (a renewal that came late, or was lost): a hold granted at 0 ms
// whose first renewal, due at 500 ms, was sent at 587 ms and lost with its
// connection may run out from 1500 ms on, not from 1587 ms.
func TestDropLapseFromTheLastAnsweredRenewal(t *testing.T) {
	kill := aFault("client-conn-kill", "c0", 587, 690, 0)
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0},
		{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVALSHA", Args: "abc 1 app:L 1500", Call: msT(0.2), Return: msT(0.8)},
		{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVALSHA", Args: "def 1 app:L 1500", Call: msT(587)},
		{Kind: WireClose, Client: 0, Conn: 1, Call: msT(588)},
		{Kind: WireOpen, Client: 0, Conn: 2, Call: msT(700)}, {Kind: WireCmd, Client: 0, Conn: 2, Cmd: "PING", Call: msT(701), Return: msT(702)},
		{Kind: WireCmd, Client: 0, Conn: 2, Cmd: "EVALSHA", Args: "def 1 app:L 1500", Call: msT(2200), Return: msT(2201)}}
	for _, c := range []struct {
		name   string
		grant  float64
		wire   bool
		beyond bool
	}{
		{"granted to p1 at 1546 ms, with the trace", 1546, true, false},
		{"granted to p1 at 1546 ms, no trace: the kill too short to cost the hold", 1546, false, true},
		{"granted to p1 before the hold's lease could end", 1400, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ops := []Op{aAcq(0, 0, 1), aAcq(1, 10, c.grant), aRel(0, 2300, 2305, Fail), aRel(1, 2400, 2405, OK)}
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, ReplyTimeout: time.Second, Reconnect: -1}
			if c.wire {
				opts.Wire = NewWireTrace(evs)
			}
			r := CheckBeyond(&History{Ops: ops, Faults: []Fault{kill}}, opts)
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
		})
	}
}

// expectGaveUp checks that r is beyond the faults, by the watchdog's finding,
// exactly when beyond says.
func expectGaveUp(t *testing.T, r Result, beyond bool) {
	t.Helper()
	if got := r.Verdict == Invalid; got != beyond {
		t.Fatalf("beyond = %v, want %v:\n%s", got, beyond, r)
	}
	if beyond && !strings.Contains(r.Examples[0].Summary, "watchdog gave up") {
		t.Errorf("not the watchdog's finding:\n%s", r)
	}
	// Its signature, from the shape the checker set: one inside, none outside.
	gaveUp, _ := ParseSignature("safety/watchdog-gave-up/acquire+release/*")
	if got := gaveUp.MatchesAny(Report{Results: []Result{r}}.Signatures()); got != beyond {
		t.Errorf("a signature %s: %v, want %v: %v", gaveUp, got, beyond, Report{Results: []Result{r}}.Signatures())
	}
}
