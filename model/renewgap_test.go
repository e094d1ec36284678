package model

import (
	"slices"
	"testing"
	"time"
)

// A command names a lock by its key, its channel or a multilock member's
// key; another lock's keys, a side lock's and a lock whose name only
// contains it do not.
func TestNamesLock(t *testing.T) {
	cases := []struct {
		args string
		want bool
	}{
		{"9a1e 1 lockcheck:ab12:hunt 1500 tok", true},
		{"SUBSCRIBE redisson_lock__channel:{lockcheck:ab12:hunt}", true},
		{"75ad 1 lockcheck:ab12:hunt:m1 1500 tok", true},
		{"75ad 1 {lockcheck:ab12:hunt}:m2 1500 tok", true},
		{"75ad 1 lockcheck:ab12:hunt~cancel 1500 tok", false},
		{"75ad 1 lockcheck:ab12:hunt~cancel:m1 1500 tok", false},
		{"75ad 1 lockcheck:ab12:hunter 1500 tok", false},
		{"75ad 1 lockcheck:ab12:ahunt:m1 1500 tok", false},
	}
	for _, c := range cases {
		if got := namesLock(c.args, "hunt"); got != c.want {
			t.Errorf("namesLock(%q, hunt) = %v, want %v", c.args, got, c.want)
		}
	}
}

// A client that serves two processes (threads) sends the second's attempts
// on the lock while the first holds it: those carry the second's token
// only, and do not renew the first's hold. The first's watchdog that
// sends nothing of its own for longer than the lease never renewed the
// hold, whatever its sibling sent; one that renews with its own token is
// fine, and so is one whose renewals carry no token at all.
func TestSiblingAttemptsRenewNothing(t *testing.T) {
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 1}}
	cmd := func(m float64, token, reply string) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Conn: 1, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + token, Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	const p0, p1 = "5f0c6a1e-8d2b:41", "5f0c6a1e-8d2b:42"
	for _, c := range []struct {
		name     string
		renewals string // the token p0's watchdog sends ("-": it sends nothing)
		want     Shape  // "": no finding
	}{
		{"the holder sends nothing", "-", ShapeWatchdogNeverRenewed},
		{"the holder renews with its token", p0, ""},
		{"the holder renews without a token", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			evs := append(binds, cmd(1, p0, "nil"))
			ops := []Op{aAcq(0, 0, 5)}
			for m := 100.0; m < 3900; m += 300 {
				try := Op{Process: 1, Lock: "L", Kind: Acquire, Call: msT(m), Return: msT(m + 3), Outcome: Fail}
				ops = append(ops, try)
				evs = append(evs, cmd(m+1, p1, "1200"))
			}
			if c.renewals != "-" {
				for m := 500.0; m < 4000; m += 500 {
					evs = append(evs, cmd(m, c.renewals, "1"))
				}
			}
			ops = append(ops, aRel(0, 4000, 4005, OK))
			evs = append(evs, cmd(4001, p0, "1"))
			r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)})
			switch {
			case c.want == "" && r.Verdict != Valid:
				t.Fatalf("want no finding:\n%s", r)
			case c.want != "" && (r.Verdict != Invalid || len(r.Examples) == 0 || r.Examples[0].Shape != c.want):
				t.Fatalf("want %s:\n%s", c.want, r)
			}
		})
	}
}

// Threads of one client hammer the lock that one of them holds: their
// attempts carry their own tokens, and in some of their calls another
// thread's attempt comes first. The tokens a process sends in every one of
// its calls are its own (requestTokens), so its siblings' attempts renew
// nothing of the holder's, and a hold its watchdog never renewed is seen
// through them.
func TestInterleavedSiblingsRenewNothing(t *testing.T) {
	const holder, p1, p2 = "5f0c6a1e-8d2b:40", "5f0c6a1e-8d2b:41", "5f0c6a1e-8d2b:42"
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 1}, {Kind: WireBind, Client: 0, Process: 2}}
	cmd := func(m float64, token, reply string) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + token, Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	try := func(p int, from float64) Op {
		return Op{Process: p, Lock: "L", Kind: Acquire, Wait: msT(100), Call: msT(from), Return: msT(from + 100), Outcome: Fail}
	}
	evs := append(binds, cmd(1, holder, "nil"),
		cmd(1005, p2, "900"), cmd(1010, p1, "890"), // both siblings' first calls: p2's attempt first
		cmd(2010, p1, "890"),
		cmd(2505, p2, "400"),
		cmd(3005, p2, "900"), cmd(3010, p1, "890")) // p1's third call: p2's attempt first again
	ops := []Op{aAcq(0, 0, 5), try(1, 1000), try(2, 1000), try(1, 2000), try(2, 2500), try(1, 3000), aRel(0, 4000, 4005, Fail)}
	opts := Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)}
	h := &History{Ops: ops}
	holds, acqs := holdsOf(h, h.horizon())["L"], lockAcquires(h)["L"]
	owners := opts.Wire.tokenOwners("L", callWindows(holds, acqs))
	for token, p := range map[string]int{holder: 0, p1: 1, p2: 2} {
		if u := owners[token]; !u.only(p, 0) {
			t.Errorf("token %s sent by %v, want p%d alone", token, u.procs, p)
		}
	}
	r := CheckBeyond(h, opts)
	if !slices.ContainsFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeWatchdogNeverRenewed && ex.Ops[0].Process == 0 }) {
		t.Errorf("p0's hold, never renewed while its siblings tried the lock, is not seen:\n%s", r)
	}
}

// A process that replaced a retired one on its driver thread sends the
// retired one's token: its watchdog's renewals carry it, after the
// retired process's last call. Such a command may be the holder's own
// renewal, so it breaks the holder's silence, even when the holder's only
// call (it crashed holding) saw a sibling's attempt first and took that
// sibling's token for its own.
func TestAReplacementRenewsWithItsPredecessorsToken(t *testing.T) {
	const thread, sibling = "5f0c6a1e-8d2b:37", "5f0c6a1e-8d2b:39"
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 1}, {Kind: WireBind, Client: 0, Process: 2}, {Kind: WireBind, Client: 0, Process: 7, Call: msT(3000)}}
	cmd := func(m float64, token, reply string) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + token, Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	ops := []Op{aAcq(1, 0, 5), aRel(1, 10, 15, OK), aAcq(1, 100, 105), aRel(1, 110, 115, OK),
		{Process: 1, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(200), Return: msT(300), Outcome: Info, Cancelled: true},
		aAcq(2, 3000, 3010), aRel(2, 3020, 3030, OK), aAcq(2, 3100, 3105), aRel(2, 3106, 3110, OK),
		aAcq(7, 3000, 3200), {Process: 7, Lock: "L", Kind: Abandon, Call: msT(6000), Return: msT(6000), Outcome: OK}}
	evs := append(binds, cmd(1, thread, "nil"), cmd(11, thread, "1"), cmd(101, thread, "nil"), cmd(111, thread, "1"), cmd(201, thread, "1500"),
		cmd(3001, sibling, "nil"), cmd(3021, sibling, "1"), cmd(3101, sibling, "nil"), cmd(3107, sibling, "1"),
		cmd(3150, thread, "nil")) // p7's grant, its only call's second command
	for m := 3650.0; m < 6000; m += 500 {
		evs = append(evs, cmd(m, thread, "1")) // p7's watchdog
	}
	r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)})
	if slices.ContainsFunc(r.Examples, func(ex Example) bool {
		return (ex.Shape == ShapeWatchdogNeverRenewed || ex.Shape == ShapeWatchdogGaveUp) && ex.Ops[0].Process == 7
	}) {
		t.Errorf("p7's renewals, with its retired predecessor's token, were not taken for its own:\n%s", r)
	}
}
