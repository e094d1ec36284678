package model

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// A wait on a free lock is read against the wire trace: a client that sent
// nothing on the lock while it stood free missed its wake-up (silent); one
// that asked and was not granted was kept out by something on the server
// the history does not show (refused). The mechanism lands in the
// signature, so the two are different finds.
func TestWaitOnFreeMechanismFromTheWire(t *testing.T) {
	// p0 holds L [0, 110]; p1 waits from 5 to 5000 (a lease is 1000), and
	// its client's command at 4990 is its grant. p0's release opened the
	// stretch: its term is in the signature.
	h := hist(acq(0, "L", 0, 10, OK), rel(0, "L", 100, 110, OK), acq(1, "L", 5, 5000, OK))
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}}
	attempt := func(client int, at int64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: client, Conn: 1, Cmd: "EVAL", Args: "<script> 1 lockcheck:x:L 1000 id:1", Reply: "900", Call: at, Return: at + 1}
	}
	tests := []struct {
		name  string
		wire  *WireTrace
		want  string // the signature
		cause string // in the example's cause
	}{
		{"no trace: no mechanism", nil, "liveness/wait-on-free/acquire+release/none", "a lost wake-up"},
		{"the waiter's client asked before the release, then only for its grant: silent",
			NewWireTrace(append(binds, attempt(1, 6), attempt(1, 4990))), "liveness/wait-on-free.silent/acquire+release/none", "sent nothing on L"},
		{"another client's commands do not count: silent",
			NewWireTrace(append(binds, attempt(0, 2000), attempt(0, 3000))), "liveness/wait-on-free.silent/acquire+release/none", "a lost wake-up"},
		{"the waiter's client asked while the lock stood free: refused",
			NewWireTrace(append(binds, attempt(1, 6), attempt(1, 1200), attempt(1, 2300), attempt(1, 4990))), "liveness/wait-on-free.refused/acquire+release/none", "sent 2 command(s) on L"},
		{"a subscription asks for nothing: silent",
			NewWireTrace(append(binds, WireEvent{Kind: WireCmd, Client: 1, Conn: 2, Cmd: "SUBSCRIBE", Args: "redisson_lock__channel:{lockcheck:x:L}", Call: 1200, Return: 1201}, attempt(1, 4990))), "liveness/wait-on-free.silent/acquire+release/none", "a lost wake-up"},
		{"a trace that does not bind the waiter says nothing",
			NewWireTrace([]WireEvent{{Kind: WireBind, Client: 0, Process: 0}, attempt(0, 2000)}), "liveness/wait-on-free/acquire+release/none", "a lost wake-up"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := CheckLive(h, Options{Wire: tt.wire})
			if res.Verdict != Invalid || len(res.Examples) != 1 {
				t.Fatalf("verdict %s with %d examples, want one violation: %s", res.Verdict, len(res.Examples), res.Explanation)
			}
			ex := res.Examples[0]
			if got := SignatureOf(res.Checker, ex).String(); got != tt.want {
				t.Errorf("signature %s, want %s", got, tt.want)
			}
			if !strings.Contains(ex.Cause, tt.cause) {
				t.Errorf("cause %q does not say %q", ex.Cause, tt.cause)
			}
		})
	}
}

// A catalog pattern without a mechanism matches both; one with a
// mechanism tells them apart.
func TestWaitMechanismPatterns(t *testing.T) {
	anyMech := mustSig(t, "liveness/wait-on-free/acquire/*")
	silent := mustSig(t, "liveness/wait-on-free.silent/acquire/*")
	refused := mustSig(t, "liveness/wait-on-free.refused/acquire/*")
	s := mustSig(t, "liveness/wait-on-free.silent/acquire.lockAsync/none")
	r := mustSig(t, "liveness/wait-on-free.refused/acquire/none")
	if !anyMech.Matches(s) || !anyMech.Matches(r) || !silent.Matches(s) || silent.Matches(r) || !refused.Matches(r) || refused.Matches(s) {
		t.Fatal("mechanism patterns do not tell silent from refused waits")
	}
}

// The longest stretch of uncovered time, the earliest of equals.
func TestLongestStretch(t *testing.T) {
	covers := []span{{0, 10}, {5, 20}, {30, 40}, {35, 38}, {60, 100}}
	for _, tt := range []struct {
		from, to int64
		want     span
	}{
		{0, 100, span{40, 60}}, {15, 35, span{20, 30}}, {100, 150, span{100, 150}}, {2, 8, span{}}, {20, 30, span{20, 30}},
	} {
		if got := longestStretch(tt.from, tt.to, covers); got != tt.want {
			t.Errorf("longestStretch(%d, %d) = %v, want %v", tt.from, tt.to, got, tt.want)
		}
	}
}

// longestStretch agrees with a count over unit cells on random covers: the
// longest run of cells of [from, to) that no span covers, the earliest of
// equals. Spans are at least one cell long (an empty span, a point, ends
// a stretch where no cell is covered).
func TestLongestStretchAgainstCells(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 3000; n++ {
		var covers []span
		for range rng.IntN(6) {
			a := rng.Int64N(50)
			covers = append(covers, span{a, a + 1 + rng.Int64N(20)})
		}
		slices.SortFunc(covers, func(x, y span) int { return cmp.Compare(x.from, y.from) })
		from := rng.Int64N(40)
		to := from + rng.Int64N(40)
		want, run := span{}, span{from, from}
		for c := from; c < to; c++ {
			covered := slices.ContainsFunc(covers, func(s span) bool { return s.from <= c && c+1 <= s.to })
			if covered {
				run = span{c + 1, c + 1}
				continue
			}
			if run.to = c + 1; run.to-run.from > want.to-want.from {
				want = run
			}
		}
		if got := longestStretch(from, to, covers); got != want {
			t.Fatalf("longestStretch(%d, %d, %v) = %v, want %v", from, to, covers, got, want)
		}
	}
}

// A semaphore waiter beside available permits is read the same way: its
// client silent (a missed release message) or asking and refused.
func TestSemWaitOnFreeMechanism(t *testing.T) {
	const s = int64(1e9)
	h := &History{Ops: []Op{
		semOp(0, SemSet, 0, 0, 10, OK),
		semOp(1, SemAcquire, 1, 20, 5*s, Fail), // waits 5 s, gives up
		semOp(0, SemAdd, 1, s, s+10, OK),       // a permit from 1 s on
	}}
	h.Ops[1].Wait = 5 * s
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 1}}
	ask := func(at int64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 1, Conn: 1, Cmd: "EVAL", Args: "<script> 1 lockcheck:x:" + h.Ops[1].Lock + " 1", Call: at, Return: at + 1}
	}
	for _, tt := range []struct {
		name string
		wire *WireTrace
		want string
	}{
		{"silent", NewWireTrace(append(binds, ask(25))), MechanismSilent},
		{"refused", NewWireTrace(append(binds, ask(25), ask(2*s), ask(3*s))), MechanismRefused},
	} {
		r := CheckPermitsLive(h, Options{Wire: tt.wire})
		if r.Verdict != Invalid || r.Examples[0].Mechanism != tt.want || !strings.Contains(r.Examples[0].Cause, "wire trace") {
			t.Errorf("%s: verdict %s, mechanism %q, cause %q", tt.name, r.Verdict, r.Examples[0].Mechanism, r.Examples[0].Cause)
		}
	}
}

func mustSig(t *testing.T, text string) Signature {
	t.Helper()
	s, err := ParseSignature(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The op that opened a wait's free stretch is in its signature: what freed
// the permits (an addition, a release) or the lock (a release) the waiter
// slept beside; nothing when the stretch began with the wait itself or at
// a lease's expiry, which no op makes.
func TestWaitOnFreeOpenerInTheSignature(t *testing.T) {
	const s = int64(1e9)
	waiter := func(call int64) Op {
		o := semOp(1, SemAcquire, 1, call, 5*s, Fail)
		o.Wait = 5*s - call
		return o
	}
	for _, tt := range []struct {
		name string
		h    *History
		want string
	}{
		{"permits added under a blocked waiter", &History{Ops: []Op{
			semOp(0, SemSet, 0, 0, 10, OK), waiter(20), semOp(0, SemAdd, 1, s, s+10, OK),
		}}, "liveness/wait-on-free/sem-acquire+sem-add/none"},
		{"a permit released under a blocked waiter", &History{Ops: []Op{
			semOp(0, SemSet, 1, 0, 10, OK), semOp(0, SemAcquire, 1, 12, 15, OK), waiter(20), semOp(0, SemRelease, 1, s, s+10, OK),
		}}, "liveness/wait-on-free/sem-acquire+sem-release/none"},
		{"permits free when the wait began", &History{Ops: []Op{
			semOp(0, SemSet, 1, 0, 10, OK), waiter(20),
		}}, "liveness/wait-on-free/sem-acquire/none"},
		{"a failed release opens nothing", &History{Ops: []Op{
			semOp(0, SemSet, 0, 0, 10, OK), waiter(20), semOp(0, SemAdd, 1, s, s+10, OK), semOp(2, SemRelease, 1, s, s+10, Fail),
		}}, "liveness/wait-on-free/sem-acquire+sem-add/none"},
	} {
		r := CheckPermitsLive(tt.h, Options{})
		if r.Verdict != Invalid {
			t.Fatalf("%s: verdict %s (%s), want a wait on free permits", tt.name, r.Verdict, r.Explanation)
		}
		if got := SignatureOf(r.Checker, r.Examples[0]).String(); got != tt.want {
			t.Errorf("%s: signature %s, want %s", tt.name, got, tt.want)
		}
	}
	// A lock whose lease ran out under its holder: the stretch opens at the
	// expiry, no op's return.
	h := hist(withLease(acq(0, "L", 0, 10, OK), 100), rel(0, "L", 200, 210, Fail), acq(1, "L", 5, 5000, OK))
	r := CheckLive(h, Options{})
	if r.Verdict != Invalid {
		t.Fatalf("expiry: verdict %s (%s), want a wait on a free lock", r.Verdict, r.Explanation)
	}
	if got := SignatureOf(r.Checker, r.Examples[0]).String(); got != "liveness/wait-on-free/acquire/none" {
		t.Errorf("expiry: signature %s, want liveness/wait-on-free/acquire/none", got)
	}
}
