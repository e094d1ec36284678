package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A process retired by an info acquire (or an Abandon of its hold) whose
// client, now serving another process, goes on sending commands on the
// lock past one lease (plus leaseBoundSlack) of the retired call, outside
// its live processes' calls and holds, kept a hold nobody owns. Cases just
// inside and just outside the rule: the bound, the spread of a renewal
// cadence, the client's live hold, keyless commands.
func TestOrphanRenewedFromTheWire(t *testing.T) {
	info := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(100), Return: msT(150), Outcome: Info, Cancelled: true}
	abandoned := []Op{aAcq(0, 0, 5), {Process: 0, Lock: "L", Kind: Abandon, Call: msT(150), Return: msT(150), Outcome: OK}}
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 2, Call: msT(150)}}
	reply := "1"
	cmd := func(name string, ms ...float64) []WireEvent {
		var evs []WireEvent
		for _, m := range ms {
			evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: name, Args: "<script 200 B> 1 app:L 1500", Reply: reply, Call: msT(m), Return: msT(m + 1)})
		}
		return evs
	}
	every := func(from, to float64) []float64 {
		var ms []float64
		for m := from; m < to; m += 500 {
			ms = append(ms, m)
		}
		return ms
	}
	// The bound: 150 ms + the 1.5 s lease + 550 ms of slack = 2200 ms.
	p2holds := []Op{aAcq(2, 2300, 2305), aRel(2, 4100, 4105, OK)}
	for _, c := range []struct {
		name   string
		ops    []Op
		evs    []WireEvent
		orphan bool
	}{
		{"renewed every 500 ms to 4 s", []Op{info}, cmd("EVAL", every(500, 4000)...), true},
		{"renewals stop before the bound", []Op{info}, cmd("EVAL", every(500, 2200)...), false},
		{"one stray command past the bound", []Op{info}, cmd("EVAL", 2500), false},
		{"two commands a renewal period apart", []Op{info}, cmd("EVAL", 2300, 2800), true},
		{"two commands closer than a renewal period", []Op{info}, cmd("EVAL", 2300, 2700), false},
		{"the commands fall in the client's live hold", append([]Op{info}, p2holds...), cmd("EVAL", every(500, 4000)...), false},
		{"the commands fall in the client's live process's long wait, then its hold", append([]Op{info}, aAcq(2, 2300, 3900), aRel(2, 4100, 4105, OK)), cmd("EVAL", every(500, 4000)...), false},
		{"keyless commands only (the lock's channel)", []Op{info}, cmd("SUBSCRIBE", every(500, 4000)...), false},
		{"an abandoned hold renewed on", abandoned, cmd("EVAL", every(500, 4000)...), true},
		// A hold granted near the record's end and never released in it
		// (the run stopped): its renewals past the last op are its own.
		{"the commands fall in a hold the record ends in", append([]Op{info}, aAcq(2, 2100, 2150)), cmd("EVAL", every(500, 4000)...), false},
		{"renewals that found nothing to renew (nil)", []Op{info}, func() []WireEvent {
			evs := cmd("EVAL", every(500, 4000)...)
			for i := range evs {
				evs[i].Reply = "nil"
			}
			return evs
		}(), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: c.ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(c.evs, binds...))})
			got := false
			for _, ex := range r.Examples {
				if ex.Shape == ShapeOrphanRenewed && ex.Class == ClassLiveness && ex.Beyond {
					got = true
				}
			}
			if got != c.orphan {
				t.Fatalf("orphan renewed = %v, want %v:\n%s", got, c.orphan, r)
			}
		})
	}
}

// A retired call's renewals that carry its own owner token are its
// orphan's even while the client's live process has calls and a hold on
// the lock; renewals of the live process's own token, or of a token every
// process sends, are not.
func TestOrphanRenewedByItsToken(t *testing.T) {
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 2, Call: msT(150)}}
	info := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(100), Return: msT(150), Outcome: Info, Cancelled: true}
	// p2 waits from 2300 ms to 3900 ms (its client busy), then holds to 4100 ms.
	live := []Op{info, aAcq(2, 2300, 3900), aRel(2, 4100, 4105, OK)}
	cmd := func(token string, m float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + token, Reply: "1", Call: msT(m), Return: msT(m + 1)}
	}
	acquired := func(token string) WireEvent { e := cmd(token, 120); e.Reply = "nil"; return e }
	p2acquire := cmd("bb2c9a-77e1:18", 2301)
	p2acquire.Reply = "1200"
	renewals := func(token string) []WireEvent {
		var evs []WireEvent
		for m := 2300.0; m < 4000; m += 500 {
			evs = append(evs, cmd(token, m+5))
		}
		return evs
	}
	for _, c := range []struct {
		name   string
		evs    []WireEvent
		orphan bool
	}{
		{"the retired call's token, renewed in the live process's wait", append([]WireEvent{acquired("fe34ec-89ee:18"), p2acquire}, renewals("fe34ec-89ee:18")...), true},
		{"the live process's own token", append([]WireEvent{acquired("fe34ec-89ee:18"), p2acquire}, renewals("bb2c9a-77e1:18")...), false},
		{"a token both processes sent", append([]WireEvent{acquired("shared-0042"), func() WireEvent { e := p2acquire; e.Args += " shared-0042"; return e }()}, renewals("shared-0042")...), false},
		{"no token (a number is none)", append([]WireEvent{acquired("15000000"), p2acquire}, renewals("15000000")...), false},
		{"a script's SHA the retired process sent first", append([]WireEvent{acquired("fe34ec-89ee:18"), p2acquire}, func() []WireEvent {
			evs := renewals("bb2c9a-77e1:18")
			for i := range evs {
				evs[i].Cmd, evs[i].Args = "EVALSHA", "6a3d31570dc6f4b0bd32 1 app:L 1500 bb2c9a-77e1:18"
			}
			first := cmd("fe34ec-89ee:18", 105) // first in the retired call: a renewal, the same script
			first.Cmd, first.Args = "EVALSHA", "6a3d31570dc6f4b0bd32 1 app:L 1500 fe34ec-89ee:18"
			return append(evs, first)
		}()...), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: live}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(c.evs, binds...))})
			got := slices.ContainsFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeOrphanRenewed })
			if got != c.orphan {
				t.Fatalf("orphan renewed = %v, want %v:\n%s", got, c.orphan, r)
			}
		})
	}
}

// An acquire answered not granted must leave nothing either: its client's
// renewals carrying its owner token past its lease bound, outside its own
// later calls and holds, are an orphan left after a refusal, and those of
// an interrupted acquire one left after a retirement. The refused
// process's own later hold renews its token as it should.
func TestOrphanRenewedAfterRefusal(t *testing.T) {
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 2}}
	refused := Op{Process: 0, Lock: "L", Kind: Acquire, Wait: msT(200), Call: msT(100), Return: msT(300), Outcome: Fail}
	interrupted := refused
	interrupted.Outcome, interrupted.Cancelled = Info, true
	cmd := func(token string, m float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 " + token, Reply: "1", Call: msT(m), Return: msT(m + 1)}
	}
	// p2, a sibling on the client, waits and holds through the whole run:
	// only a token tells whose renewals they are.
	p2 := []Op{aAcq(2, 50, 5000), aRel(2, 5100, 5105, OK)}
	renewals := func(token string, from, to float64) []WireEvent {
		evs := []WireEvent{cmd(token, 110), cmd("bb2c9a-77e1:18", 60)} // each process's first request
		for m := from; m < to; m += 500 {
			evs = append(evs, cmd(token, m))
		}
		return evs
	}
	for _, c := range []struct {
		name string
		ops  []Op
		evs  []WireEvent
		mech string // "-": no orphan
	}{
		{"a refused acquire's token renewed on", append([]Op{refused}, p2...), renewals("fe34ec-89ee:18", 500, 4500), MechanismAfterRefusal},
		{"an interrupted acquire's token renewed on", append([]Op{interrupted}, p2...), renewals("fe34ec-89ee:18", 500, 4500), MechanismAfterRetirement},
		{"the refused process's own later hold", append([]Op{refused, aAcq(0, 2400, 2450), aRel(0, 4400, 4410, OK)}, p2...), renewals("fe34ec-89ee:18", 2500, 4400), "-"},
		{"renewals that stop within the lease bound", append([]Op{refused}, p2...), renewals("fe34ec-89ee:18", 500, 2300), "-"},
		{"a refusal, then its process's interrupted acquire: renewals past both bounds are the later one's", func() []Op {
			later := interrupted
			later.Call, later.Return = msT(2000), msT(2100)
			return append([]Op{refused, later}, p2...)
		}(), renewals("fe34ec-89ee:18", 2500, 6000), MechanismAfterRetirement},
		{"late releases of the refused process, in no hold", append([]Op{refused, aRel(0, 2500, 2510, Fail), aRel(0, 3100, 3110, Fail), aRel(0, 3700, 3710, Fail)}, p2...),
			[]WireEvent{cmd("fe34ec-89ee:18", 110), cmd("bb2c9a-77e1:18", 60), cmd("fe34ec-89ee:18", 2505), cmd("fe34ec-89ee:18", 3105), cmd("fe34ec-89ee:18", 3705)}, "-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: c.ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(c.evs, binds...))})
			got := "-"
			for _, ex := range r.Examples {
				if ex.Shape == ShapeOrphanRenewed {
					got = ex.Mechanism
				}
			}
			if got != c.mech {
				t.Fatalf("orphan mechanism = %q, want %q:\n%s", got, c.mech, r)
			}
		})
	}
}

// Without a wire trace the rule says nothing, nor on a fair lock (whose
// dead waiters keep the queue for its own timeout) or a quorum lock.
func TestOrphanRenewedNotJudged(t *testing.T) {
	info := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(100), Return: msT(150), Outcome: Info}
	var evs []WireEvent
	for m := 500.0; m < 4000; m += 500 {
		evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "1 app:L 1500", Reply: "1", Call: msT(m), Return: msT(m + 1)})
	}
	wire := NewWireTrace(append(evs, WireEvent{Kind: WireBind, Client: 0, Process: 0}))
	lease := leaseMs * time.Millisecond
	if ex := orphanTraffic("L", nil, []*Op{&info}, nil, func() map[string]tokenUse { return wire.tokenOwners("L", nil) }, Options{WatchdogLease: lease, Wire: wire}, msT(5000)); len(ex) != 1 {
		t.Fatalf("the case itself: %d findings, want 1", len(ex))
	}
	for name, opts := range map[string]Options{
		"no trace":   {WatchdogLease: lease},
		"fair":       {WatchdogLease: lease, Wire: wire, Fair: true},
		"split vote": {WatchdogLease: lease, Wire: wire, SplitVotes: true},
	} {
		if ex := orphanTraffic("L", nil, []*Op{&info}, nil, func() map[string]tokenUse { return wire.tokenOwners("L", nil) }, opts, msT(5000)); len(ex) != 0 {
			t.Errorf("%s: %v", name, ex)
		}
	}
}

// A reply says Redis acted when it is OK, a positive integer, or an array
// led by one, as the proxy writes them.
func TestActedReply(t *testing.T) {
	for reply, want := range map[string]bool{
		"1": true, "OK": true, "[1: 1]": true, "[2: 1 1500]": true, "921": true,
		"0": false, "nil": false, "[1: 0]": false, "[2: 0 1000]": false, "ERR no such key": false, "": false, "[0: ]": false, "-1": false,
	} {
		if got := acted(reply); got != want {
			t.Errorf("acted(%q) = %v, want %v", reply, got, want)
		}
	}
}

// orphanCommands (a binary search in the gaps between the busy spans)
// agrees with the rule read directly: a command counts when no busy span
// covers it and it comes after the bound of every retired call before it.
func TestOrphanCommandsDifferential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := func(label string) int64 { return msT(float64(rapid.IntRange(0, 5000).Draw(t, label))) }
		var busy []span
		for i := range rapid.IntRange(0, 6).Draw(t, "busy") {
			from := ms(fmt.Sprint("from", i))
			busy = append(busy, span{from, from + ms(fmt.Sprint("len", i))/4})
		}
		var rs []retired
		for i := range rapid.IntRange(1, 3).Draw(t, "retired") {
			rs = append(rs, retired{op: &Op{}, last: ms(fmt.Sprint("last", i)), lease: msT(300)})
		}
		var sent []int64
		for i := range rapid.IntRange(0, 20).Draw(t, "sent") {
			sent = append(sent, ms(fmt.Sprint("sent", i)))
		}
		slices.Sort(sent)
		want := []int64{}
		for _, c := range sent {
			covered := slices.ContainsFunc(busy, func(s span) bool { return s.from <= c && c <= s.to })
			before, past := false, true
			for _, r := range rs {
				if r.last < c {
					before = true
					past = past && c > r.last+r.lease+leaseBoundSlack(r.lease)
				}
			}
			if !covered && before && past {
				want = append(want, c)
			}
		}
		got := append([]int64{}, orphanCommands(sent, rs, gaps(append(busy, span{msT(9000), msT(9000)})))...)
		if !slices.Equal(got, want) {
			t.Fatalf("orphanCommands = %v, want %v (busy %v, retired %+v)", got, want, busy, rs)
		}
	})
}

// A refusal past the lease bound has an occupant the history does not
// show: when the wire trace shows the lock's orphans, and they all say
// what left them, the refusal says it too; with no orphan traffic on the
// lock it says nothing.
func TestLeaseBoundRefusalTakesTheOrphansMechanism(t *testing.T) {
	interrupted := Op{Process: 0, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(100), Return: msT(300), Outcome: Info, Cancelled: true}
	refused := Op{Process: 3, Lock: "L", Kind: Acquire, Wait: msT(200), Call: msT(3000), Return: msT(3200), Outcome: Fail}
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 1, Process: 3}}
	var renewals []WireEvent
	for m := 500.0; m < 4500; m += 500 {
		renewals = append(renewals, WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<script 200 B> 1 app:L 1500 fe34ec-89ee:18", Reply: "1", Call: msT(m), Return: msT(m + 1)})
	}
	for name, c := range map[string]struct {
		evs  []WireEvent
		mech string
	}{
		"orphan traffic after a retirement": {renewals, MechanismAfterRetirement},
		"no orphan traffic on the lock":     {nil, ""},
	} {
		t.Run(name, func(t *testing.T) {
			ops := []Op{aAcq(1, 10, 20), aRel(1, 50, 60, OK), interrupted, refused} // the lease bound judges a lock that was held
			r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(c.evs, binds...))})
			i := slices.IndexFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeOrphanRenewed && ex.Ops[0].Process == 3 })
			if i < 0 {
				t.Fatalf("no refusal past the lease bound:\n%s", r)
			}
			if got := r.Examples[i].Mechanism; got != c.mech {
				t.Errorf("refusal's mechanism %q, want %q", got, c.mech)
			}
		})
	}
}
