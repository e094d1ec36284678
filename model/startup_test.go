package model

import (
	"testing"
	"time"
)

// An acquire called while its client had no connection open waits from the
// client's first command on the lock: what came before is the client's
// start-up (a JVM connecting, warming up). A client with a connection that
// sends nothing waits all along.
func TestStartUpIsNotWaiting(t *testing.T) {
	wait := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(0), Return: msT(3000), Outcome: OK}
	bind := WireEvent{Kind: WireBind, Client: 0, Process: 0}
	first := WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 9 B> 1 app:L", Call: msT(2900), Return: msT(2901)}
	for _, c := range []struct {
		name string
		wire *WireTrace
		want Verdict
	}{
		{"no trace", nil, Invalid},
		{"connected only at 1.5 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}, first}), Valid},
		{"connected all along, silent until 2.9 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(-10)}, first}), Invalid},
		{"connected at 1.5 s, never named the lock", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}}), Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: []Op{wait}}
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, MaxWait: WaitBound(time.Second), Wire: c.wire}
			if r := CheckContext(t.Context(), h, opts); resultOf(r, CheckLiveness).Verdict != c.want {
				t.Errorf("liveness: %s, want %s", resultOf(r, CheckLiveness), c.want)
			}
		})
	}
}

func resultOf(r Report, checker string) Result {
	res, _ := r.Result(checker)
	return res
}
