package model

import (
	"testing"
	"time"
)

// An acquire called while its client had no connection open, or while it
// was still authenticating and warming up, waits from the client's first
// command on the lock: what came before is the client's start-up (a JVM
// connecting, warming up). A client with a connection that sends nothing
// (or only PINGs), or that had named the lock already, waits all along.
func TestStartUpIsNotWaiting(t *testing.T) {
	wait := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(0), Return: msT(3000), Outcome: OK}
	bind := WireEvent{Kind: WireBind, Client: 0, Process: 0, Call: msT(-20)}
	first := WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 9 B> 1 app:L", Call: msT(2900), Return: msT(2901)}
	for _, c := range []struct {
		name string
		wire *WireTrace
		want Verdict
	}{
		{"no trace", nil, Invalid},
		{"connected only at 1.5 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}, first}), Valid},
		{"connected all along, silent until 2.9 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(-10)}, first}), Invalid},
		{"connected before the call, authenticating and warming up until 2.9 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(-10)},
			{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "AUTH", Call: msT(200), Return: msT(201)},
			{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVALSHA", Args: "abc 1 app:warmup:1", Call: msT(2500), Return: msT(2501)}, first}), Valid},
		{"connected all along, only PINGs until 2.9 s", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(-10)},
			{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "PING", Call: msT(200), Return: msT(201)}, first}), Invalid},
		{"named the lock before the call", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)},
			{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 9 B> 1 app:L", Call: msT(-5), Return: msT(-4)}, first}), Invalid},
		{"connected at 1.5 s, never named the lock", NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}}), Invalid},
		{"an earlier process's connection still open: its own came at 1.5 s", NewWireTrace([]WireEvent{bind,
			{Kind: WireOpen, Client: 0, Conn: 9, Call: msT(-500)}, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}, first}), Valid},
		{"not the process's first op", nil, Invalid},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: []Op{wait}}
			if c.name == "not the process's first op" {
				c.wire = NewWireTrace([]WireEvent{bind, {Kind: WireOpen, Client: 0, Conn: 1, Call: msT(1500)}, first})
				late := wait
				late.Call = msT(50)
				h.Ops = []Op{
					{Process: 0, Lock: "M", Kind: Acquire, Blocking: true, Call: msT(0), Return: msT(10), Outcome: OK},
					{Process: 0, Lock: "M", Kind: Release, Call: msT(20), Return: msT(30), Outcome: OK}, late}
			}
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
