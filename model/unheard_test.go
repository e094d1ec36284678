package model

import (
	"strings"
	"testing"
	"time"
)

// An acquire answered granted is judged by what its client heard: p0's
// acquire runs from 100 to 2000 ms and its client sends EVAL on the lock
// at 110 ms. Just inside the rule, Redis answered before the call
// returned; just outside, after it, or never. No command on the lock (a
// re-entry counted in the client) or a subscription alone is not judged.
func TestUnheardGrant(t *testing.T) {
	ops := []Op{aAcq(0, 100, 2000), aRel(0, 2500, 2505, OK)}
	bind := WireEvent{Kind: WireBind, Client: 0, Process: 0}
	eval := func(ret float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500", Call: msT(110), Return: msT(ret)}
	}
	for _, c := range []struct {
		name   string
		evs    []WireEvent
		beyond bool
	}{
		{"answered before the call returned", []WireEvent{bind, eval(1999)}, false},
		{"answered just after the call returned", []WireEvent{bind, eval(2001)}, true},
		{"never answered", []WireEvent{bind, eval(0)}, true},
		{"a retry answered", []WireEvent{bind, eval(0), {Kind: WireCmd, Client: 0, Conn: 2, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500", Call: msT(1500), Return: msT(1600)}}, false},
		{"nothing sent on the lock", []WireEvent{bind, {Kind: WireCmd, Client: 0, Cmd: "GET", Args: "app:LL", Call: msT(110)}}, false},
		{"a subscription only", []WireEvent{bind, {Kind: WireCmd, Client: 0, Cmd: "SUBSCRIBE", Args: "chan:{app:L}", Call: msT(110)}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.evs)})
			found := false
			for _, ex := range r.Examples {
				found = found || ex.Shape == ShapeUnheardGrant && strings.Contains(ex.Summary, "answered none")
			}
			if found != c.beyond || c.beyond && r.Verdict != Invalid {
				t.Fatalf("unheard grant found %v (verdict %s), want %v:\n%s", found, r.Verdict, c.beyond, r)
			}
		})
	}
}
