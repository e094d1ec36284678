package model

import (
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// An Info acquire may have taken the lock, which explains a later refusal;
// one whose client, by the wire trace, sent Redis nothing took nothing, and
// the refusal stands. p0 holds L from 0 to 100 ms; p1's acquire runs from
// 200 to 210 ms (EOF) and could take effect until 300 ms; p2's TryLock
// (no wait) at 400 ms is refused. Just inside the rule p1's client sent
// only a PING; just outside it sent an EVAL, at the last moment its
// request could still act (300 ms), or a command of unknown key.
func TestSettleUnsentAcquire(t *testing.T) {
	info := Op{Process: 1, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(200), Return: msT(210), Deadline: msT(300), Outcome: Info, Error: "EOF"}
	refused := Op{Process: 2, Lock: "L", Kind: Acquire, Call: msT(400), Return: msT(405), Outcome: Fail}
	ops := []Op{aAcq(0, 0, 10), aRel(0, 90, 100, OK), info, refused}
	bind := WireEvent{Kind: WireBind, Client: 1, Process: 1}
	cmd := func(name, args string, at float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 1, Conn: 1, Cmd: name, Args: args, Call: msT(at)}
	}
	for _, c := range []struct {
		name    string
		wire    []WireEvent
		settled bool
	}{
		{"a PING only", []WireEvent{bind, cmd("PING", "", 205)}, true},
		{"nothing at all", []WireEvent{bind}, true},
		{"an EVAL before the call", []WireEvent{bind, cmd("EVAL", "<script 200 B> 1 app:L", 199)}, true},
		{"an EVAL in the call", []WireEvent{bind, cmd("EVAL", "<script 200 B> 1 app:L", 205)}, false},
		{"an EVAL at the deadline", []WireEvent{bind, cmd("EVAL", "<script 200 B> 1 app:L", 300)}, false},
		{"a command on another key", []WireEvent{bind, cmd("GET", "app:other", 205)}, false},
		{"a client the trace does not know", []WireEvent{{Kind: WireBind, Client: 3, Process: 3}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &History{Ops: ops}
			r := CheckLinearizability(h, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(c.wire)})
			if want := map[bool]Verdict{true: Invalid, false: Valid}[c.settled]; r.Verdict != want {
				t.Fatalf("verdict %s, want %s:\n%s", r.Verdict, want, r)
			}
			if got := strings.Contains(r.Explanation, "sent Redis nothing"); got != c.settled {
				t.Fatalf("explanation names a settled acquire: %v, want %v: %s", got, c.settled, r.Explanation)
			}
			if h.Ops[2].Kind != Acquire || h.Ops[2].Outcome != Info {
				t.Fatalf("the history was changed: %v", h.Ops[2])
			}
		})
	}
	// Without a trace nothing is settled.
	if r := CheckLinearizability(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond}); r.Verdict != Valid {
		t.Fatalf("no trace: verdict %s, want valid:\n%s", r.Verdict, r)
	}
}

// A failover that fails every acquire in flight with EOF leaves dozens of
// overlapping Info acquires. With the trace showing that none of them sent
// anything, each is settled, and a history that holds is decided valid.
func TestSettleUnsentFailoverBurst(t *testing.T) {
	ops := []Op{aAcq(0, 0, 10)}
	wire := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}}
	const burst = 40
	for i := 1; i <= burst; i++ {
		at := 1000 + float64(i)*20
		ops = append(ops, Op{Process: i, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(at), Return: msT(at + 1), Deadline: msT(6000), Outcome: Info, Error: "EOF"})
		wire = append(wire, WireEvent{Kind: WireBind, Client: i, Process: i}, WireEvent{Kind: WireCmd, Client: i, Cmd: "PING", Call: msT(at)})
	}
	ops = append(ops, aRel(0, 7000, 7001, OK), aAcq(burst+1, 7100, 7110))
	r := CheckLinearizability(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(wire), Timeout: time.Minute})
	if r.Verdict != Valid || !strings.Contains(r.Explanation, "40 acquire(s)") {
		t.Fatalf("verdict %s, want valid with 40 settled:\n%s", r.Verdict, r)
	}
}

// Two ways to the same verdict: Info acquires that sent Redis nothing,
// settled from the wire trace, judge a history as it is judged without
// them at all. Each ghost is a process of its own whose only op is an
// Info acquire (1 ms, its request able to act until a drawn deadline) on
// one of the history's locks, and whose client sent only a PING.
func TestSettledGhostsAreAbsent(t *testing.T) {
	diffChecks(t, 300)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 60, maxLocks: 2, perturb: true})
		if len(h.Ops) == 0 {
			return
		}
		next, end := 0, int64(0)
		for _, o := range h.Ops {
			next, end = max(next, o.Process+1), max(end, o.effectiveDeadline())
		}
		with := &History{Ops: slices.Clone(h.Ops)}
		var wire []WireEvent
		for i := range rapid.IntRange(1, 6).Draw(t, "ghosts") {
			p := next + i
			call := rapid.Int64Range(0, end).Draw(t, "call")
			lock := h.Ops[rapid.IntRange(0, len(h.Ops)-1).Draw(t, "on")].Lock
			with.Ops = append(with.Ops, Op{Process: p, Lock: lock, Kind: Acquire, Blocking: true, Call: call, Return: call + msT(1),
				Deadline: call + rapid.Int64Range(msT(1), msT(5000)).Draw(t, "deadline"), Outcome: Info})
			wire = append(wire, WireEvent{Kind: WireBind, Client: p, Process: p, Call: call}, WireEvent{Kind: WireCmd, Client: p, Cmd: "PING", Call: call})
		}
		without := CheckLinearizability(h, opts).Verdict
		opts.Wire = NewWireTrace(wire)
		settled := CheckLinearizability(with, opts).Verdict
		if without != Unknown && settled != Unknown && settled != without {
			t.Fatalf("with settled ghosts %s, without them %s:\n%s", settled, without, dumpHistory(with))
		}
	})
}
