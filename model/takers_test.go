package model

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A hold lost with no fault (p1 granted at 510 ms, its release at 900 ms
// answered "not held") is quoted with the commands on its lock that p0's
// client sent outside any call of p0's while p1 held it: a watchdog's
// renewal at 700 ms is; one inside p0's waiting acquire, one before p1's
// grant was answered, one after p1's release was called, one unanswered
// and one on another lock are not.
func TestLostHoldQuotesWhoTookIt(t *testing.T) {
	cmd := func(at float64, args string, answered bool) WireEvent {
		e := WireEvent{Kind: WireCmd, Client: 0, Process: 0, Conn: 1, Cmd: "EVALSHA", Args: args, Reply: "1", Call: msT(at)}
		if answered {
			e.Return = msT(at + 1)
		}
		return e
	}
	const onL, onM = "9a1e 1 L tok-0 1500", "9a1e 1 M tok-0 1500"
	wire := NewWireTrace([]WireEvent{
		{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1},
		cmd(505, onL, true),  // before p1's grant was answered
		cmd(620, onL, true),  // inside p0's acquire [600, 650]
		cmd(700, onL, true),  // outside every call of p0's: quoted
		cmd(750, onL, false), // unanswered
		cmd(760, onM, true),  // another lock
		cmd(950, onL, true),  // after p1's release was called
	})
	h := &History{Ops: []Op{
		aAcq(0, 0, 5), aAcq(1, 20, 510), aAcq(0, 600, 650), aRel(1, 900, 905, Fail),
	}}
	h.Ops[2].Outcome = Fail // p0's second acquire gave up
	r := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: wire})
	var cause string
	for _, ex := range r.Examples {
		if ex.Shape == ShapeHoldLost {
			cause = ex.Cause
		}
	}
	if cause == "" {
		t.Fatalf("no lost hold found:\n%s", r)
	}
	if want := "p0 sent EVALSHA " + onL + " at 0.700000s, answered 1 at 0.701000s, outside any call of p0's, 190ms after p1's grant"; !strings.Contains(cause, want) {
		t.Errorf("cause does not quote %q:\n%s", want, cause)
	}
	for _, not := range []string{"at 0.505000s", "at 0.620000s", "at 0.750000s", "at 0.760000s", "at 0.950000s"} {
		if strings.Contains(cause, not) {
			t.Errorf("cause quotes the command %s:\n%s", not, cause)
		}
	}
	if r2 := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond}); r2.Verdict != r.Verdict || strings.Contains(r2.String(), "outside any call") {
		t.Errorf("without the trace: verdict %s (with it %s), or a quote:\n%s", r2.Verdict, r.Verdict, r2)
	}
}

// TestReleaseAfterATakeBackIsNamed: p0, paused past its lease, loses its
// hold to p1; then p0's client sends a command on the lock outside any
// call of p0's, and p0's release answers ok while p1 holds. The anomaly
// (p0's release did not learn the loss) is named "took the lock back", a
// double grant, with the command quoted; without that command (or with it
// inside p0's release call, or before p1's grant) it is not, and is
// judged the same, shaped as the ok release of a lapsed hold.
func TestReleaseAfterATakeBackIsNamed(t *testing.T) {
	pause := aFault("process-pause", "w0", 100, 2500, 0)
	h := func() *History {
		section := Op{Process: 0, Lock: "L", Kind: Section, Call: msT(2502), Return: msT(2598), Outcome: OK} // a renewal in it is outside any call
		return &History{Ops: []Op{aAcq(0, 0, 5), aAcq(1, 20, 1700), section, aRel(0, 2600, 2610, OK)}, Faults: []Fault{pause}}
	}
	renewal := func(at float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Process: 0, Conn: 1, Cmd: "EVALSHA", Args: "9a1e 1 L tok-0 1500", Reply: "1", Call: msT(at), Return: msT(at + 1)}
	}
	cases := []struct {
		name  string
		at    float64 // the command's time (0: none)
		named bool
	}{
		{"a renewal after p1's grant, before p0's release", 2510, true},
		{"a renewal before p1's grant", 1650, false},
		{"a command inside p0's release", 2605, false},
		{"no command", 0, false},
	}
	for _, c := range cases {
		evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}}
		if c.at > 0 {
			evs = append(evs, renewal(c.at))
		}
		r := CheckBeyond(h(), Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)})
		want := ShapeUnlockAfterLapse
		if c.named {
			want = ShapeDoubleGrant
		}
		var ex *Example
		for i := range r.Examples {
			if r.Examples[i].Shape == want {
				ex = &r.Examples[i]
			}
		}
		if ex == nil {
			t.Fatalf("%s: no %s:\n%s", c.name, want, r)
		}
		named := strings.HasPrefix(ex.Summary, "p0 took the lock back from p1: ")
		quoted := strings.Contains(ex.Cause, fmt.Sprintf("how p0 took it back: p0 sent EVALSHA 9a1e 1 L tok-0 1500 at %s", fmtTime(msT(c.at))))
		if named != c.named || quoted != c.named {
			t.Errorf("%s: named %v, quoted %v, want %v:\n%s\n%s", c.name, named, quoted, c.named, ex.Summary, ex.Cause)
		}
	}
}

// A history with a drop fault and no wire trace says that it was judged
// without one (the constant reconnection); with a trace, or with no drop
// fault, it does not.
func TestUntracedDropIsSaid(t *testing.T) {
	h := &History{Ops: []Op{aAcq(0, 0, 5), aRel(0, 3000, 3005, OK)}, Faults: []Fault{aFault("client-conn-kill", "p0", 1000, 1001, 0)}}
	opts := Options{WatchdogLease: leaseMs * time.Millisecond}
	if r := CheckBeyond(h, opts); !strings.Contains(r.Explanation, "no wire trace: each drop's reconnection taken as 1s") {
		t.Errorf("untraced drop: %q", r.Explanation)
	}
	opts.Wire = NewWireTrace(nil)
	if r := CheckBeyond(h, opts); strings.Contains(r.Explanation, "no wire trace") {
		t.Errorf("traced drop: %q", r.Explanation)
	}
	h.Faults[0].Name, opts.Wire = "client-stall", nil
	if r := CheckBeyond(h, opts); strings.Contains(r.Explanation, "no wire trace") {
		t.Errorf("untraced stall: %q", r.Explanation)
	}
}
