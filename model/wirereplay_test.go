package model

import (
	"testing"
	"time"
)

// replayTrace is p0's client (0) over a release of L called at 500 ms and
// answered "not held" at 530 ms: its unlock sent on connection 1 at
// firstAt, connection 1 closed at 506 (unless open), and the command sent
// again on connection 2 at againAt with againArgs, answered at againAt+1.
func replayTrace(firstAnswered, open bool, againAt float64, againArgs string) *WireTrace {
	const args = "f0f9 1 spring:lockcheck:x:L tok-0"
	first := WireEvent{Kind: WireCmd, Client: 0, Process: 0, Conn: 1, Cmd: "EVALSHA", Args: args, Call: msT(505)}
	if firstAnswered {
		first.Return = msT(505.5)
	}
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1)}, first,
		{Kind: WireOpen, Client: 0, Conn: 2, Call: msT(510)},
		{Kind: WireCmd, Client: 0, Process: 0, Conn: 2, Cmd: "EVALSHA", Args: againArgs, Reply: "nil", Call: msT(againAt), Return: msT(againAt + 1)}}
	if !open {
		evs = append(evs, WireEvent{Kind: WireClose, Client: 0, Conn: 1, Call: msT(506)})
	}
	return NewWireTrace(evs)
}

// A release answered "not held" whose unlock the wire trace shows sent
// twice (the first copy lost with its connection, the second answered
// nothing to release) ended its hold with its first copy: allowed. Any
// other trace leaves it beyond the kill's allowance (a drop that struck
// 5 ms into the release cannot end a hold renewed for 1.5 s).
func TestReplayedReleaseEndedItsHold(t *testing.T) {
	const args = "f0f9 1 spring:lockcheck:x:L tok-0"
	for _, c := range []struct {
		name   string
		wire   *WireTrace
		beyond bool
	}{
		{"sent again verbatim after its connection closed", replayTrace(false, false, 520, args), false},
		{"sent again just before the release returned", replayTrace(false, false, 528.5, args), false},
		{"no trace", nil, true},
		{"the first copy was answered: no replay", replayTrace(true, false, 520, args), true},
		{"its connection stayed open: no replay", replayTrace(false, true, 520, args), true},
		{"sent again with other arguments", replayTrace(false, false, 520, "f0f9 1 spring:lockcheck:x:L tok-1"), true},
		{"sent again after the release returned", replayTrace(false, false, 531, args), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{
				Ops:    []Op{aAcq(0, 0, 5), aRel(0, 500, 530, Fail), aAcq(1, 600, 610), aRel(1, 700, 710, OK)},
				Faults: []Fault{aFault("client-conn-kill", "c0", 505, 506, 0)},
			}
			r := CheckBeyond(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: c.wire})
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
		})
	}
}
