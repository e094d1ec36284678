package model

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// A watchdog hold whose key is deleted at 1.7 s: a correct client's next
// renewal learns it ("0") and is its last; one that goes on renewing,
// answered "0" again a renewal period later, renewed a missing hold,
// during the hold or past its release. Cases just inside and just outside
// the rule: one answer, a retry within half a period, an acted renewal
// between, a new grant between, the holder's own calls, another process's
// token, and a hold with an explicit lease.
func TestRenewedMissingFromTheWire(t *testing.T) {
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 1}}
	cmd := func(token, reply string, m float64) WireEvent { // a renewal
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<renew> 1 app:L 1500 " + token, Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	const mine = "fe34ec-89ee:18"
	acquire := cmd(mine, "nil", 1)
	acquire.Args = "<acquire> 1 app:L 1500 " + mine
	renewals := func(token string, replies map[float64]string) []WireEvent {
		evs := []WireEvent{acquire}
		for m := 500.0; m < 4000; m += 500 {
			r, ok := replies[m]
			if !ok {
				r = "1"
				if m > 1700 {
					r = "0"
				}
			}
			evs = append(evs, cmd(token, r, m))
		}
		return evs
	}
	stopped := func() []WireEvent { // a correct watchdog: the 2000 ms renewal is its last
		return slices.DeleteFunc(renewals(mine, nil), func(e WireEvent) bool { return e.Call > msT(2000) })
	}
	hold := []Op{aAcq(0, 0, 5), aRel(0, 4000, 4005, Fail)}
	leased := []Op{aAcqLease(0, 0, 5, 1500), aRel(0, 4000, 4005, Fail)}
	for _, c := range []struct {
		name    string
		ops     []Op
		evs     []WireEvent
		missing bool
	}{
		{"renewed every 500 ms after the answer 0", hold, renewals(mine, nil), true},
		{"the renewal that learns it is the last", hold, stopped(), false},
		{"a retry within half a period", hold, append(stopped(), cmd(mine, "0", 2200)), false},
		{"two answers a period apart", hold, append(stopped(), cmd(mine, "0", 2500)), true},
		{"answered nil, not 0", hold, func() []WireEvent {
			evs := renewals(mine, nil)
			for i := range evs[1:] {
				if evs[i+1].Reply == "0" {
					evs[i+1].Reply = "nil"
				}
			}
			return evs
		}(), true},
		{"a renewal acted on between the answers (the hold came back)", hold, renewals(mine, map[float64]string{2500: "1"}), true},
		{"acted on between every two answers", hold, renewals(mine, map[float64]string{2500: "1", 3500: "1"}), false},
		{"the answers fall in the holder's release", []Op{aAcq(0, 0, 5), aRel(0, 1900, 3950, Fail)}, renewals(mine, nil), false},
		{"the answers fall in the holder's reentry (its watchdog's, not its attempts)", append(slices.Clone(hold), aAcq(0, 1900, 3950)), func() []WireEvent {
			reentry := acquire
			reentry.Call, reentry.Return = msT(1901), msT(3949)
			return append(renewals(mine, nil), reentry)
		}(), true},
		{"the renewals have the acquire's form", hold, func() []WireEvent {
			evs := renewals(mine, nil)
			evs[0].Args = "<renew> 1 app:L 1500 " + mine
			return evs
		}(), false},
		{"another process's token", append(slices.Clone(hold), Op{Process: 1, Lock: "L", Kind: Acquire, Call: msT(600), Return: msT(650), Outcome: Fail, Wait: 1}),
			append(renewals("bb2c9a-77e1:18", nil), func() WireEvent {
				e := cmd("bb2c9a-77e1:18", "1200", 601)
				e.Args = "<acquire> 1 app:L 1500 bb2c9a-77e1:18"
				return e
			}()), false},
		{"errors, not answers", hold, func() []WireEvent {
			evs := renewals(mine, nil)
			for i := range evs {
				if evs[i].Reply == "0" {
					evs[i].Reply = "ERR connection"
				}
			}
			return evs
		}(), false},
		{"a hold with an explicit lease has no watchdog", leased, renewals(mine, nil), false},
		{"a renewal that answers 0 while its hold stands (python-redis-lock's extend)", hold, renewals(mine, map[float64]string{500: "0", 1000: "0", 1500: "0"}), false},
		{"the first renewal refused, the rest answered 0 while the hold stands (python-redis-lock's extend, its script not yet loaded)", hold,
			renewals(mine, map[float64]string{500: "NOSCRIPT No matching script. Please use …", 1000: "0", 1500: "0"}), false},
		{"renewed past the holder's release", []Op{aAcq(0, 0, 5), aRel(0, 2100, 2105, Fail)}, renewals(mine, nil), true},
		{"granted again between the answers (a new hold, lost again)", append([]Op{aAcq(0, 0, 5), aRel(0, 2100, 2105, Fail)}, aAcq(0, 2200, 2210), aRel(0, 2800, 2805, Fail)),
			append(stopped(), cmd(mine, "0", 2600)), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: c.ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(c.evs, binds...))})
			got := slices.ContainsFunc(r.Examples, func(ex Example) bool {
				return ex.Shape == ShapeRenewedMissing && ex.Class == ClassContract && ex.Beyond
			})
			if got != c.missing {
				t.Fatalf("renewed missing = %v, want %v:\n%s", got, c.missing, r)
			}
		})
	}
}

// Without a wire trace, or on a lock without a watchdog, the rule says
// nothing.
func TestRenewedMissingNotJudged(t *testing.T) {
	hold := []Op{aAcq(0, 0, 5), aRel(0, 4000, 4005, Fail)}
	evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0},
		{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<acquire> 1 app:L fe34ec-89ee:18", Reply: "nil", Call: msT(1), Return: msT(2)},
		{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<renew> 1 app:L fe34ec-89ee:18", Reply: "1", Call: msT(500), Return: msT(501)}}
	for m := 2000.0; m < 4000; m += 500 {
		evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: "<renew> 1 app:L fe34ec-89ee:18", Reply: "0", Call: msT(m), Return: msT(m + 1)})
	}
	lease := leaseMs * time.Millisecond
	h := &History{Ops: hold}
	holds := holdsOf(h, h.horizon())["L"]
	if ex := renewedMissing("L", holds, nil, Options{WatchdogLease: lease, Wire: NewWireTrace(evs)}); len(ex) != 1 {
		t.Fatalf("the case itself: %d findings, want 1", len(ex))
	}
	for name, opts := range map[string]Options{
		"no wire trace": {WatchdogLease: lease},
		"no watchdog":   {WatchdogLease: lease, Wire: NewWireTrace(evs), NoWatchdog: true},
	} {
		if ex := renewedMissing("L", holds, nil, opts); len(ex) != 0 {
			t.Errorf("%s: %d findings, want none", name, len(ex))
		}
	}
}

// A renewal of a form of its own (not an acquire's) is one wherever it
// falls: renewals answered "0" a period apart while the holder waits in its
// next acquire (whose own attempts are answered with the holder's wait)
// renewed a missing hold; if the acquire sends that form too, they are
// taken for its attempts and say nothing.
func TestRenewedMissingInTheHoldersWait(t *testing.T) {
	binds := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}}
	const mine = "fe34ec-89ee:18"
	cmd := func(script, reply string, m float64) WireEvent {
		return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: script + " 1 app:L 1500 " + mine, Reply: reply, Call: msT(m), Return: msT(m + 1)}
	}
	ops := []Op{aAcq(0, 0, 5), aRel(0, 1000, 1005, OK), aAcq(0, 2200, 3950), aRel(0, 4000, 4005, OK)}
	wire := func(acquire string) []WireEvent {
		evs := []WireEvent{cmd(acquire, "nil", 1), cmd("<renew>", "1", 500), cmd("<unlock>", "1", 1001)}
		for m := 2201.0; m < 3950; m += 300 {
			evs = append(evs, cmd(acquire, "1200", m)) // the attempts of the wait
		}
		for m := 2500.0; m < 3950; m += 500 {
			evs = append(evs, cmd("<renew>", "0", m)) // a renewal that outlived the first hold
		}
		return append(evs, cmd(acquire, "nil", 3949))
	}
	for _, c := range []struct {
		name    string
		acquire string
		missing bool
	}{
		{"the renewals have a form of their own", "<acquire>", true},
		{"the acquire sends the renewal's form", "<renew>", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(append(wire(c.acquire), binds...))})
			got := slices.ContainsFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeRenewedMissing })
			if got != c.missing {
				t.Fatalf("renewed missing = %v, want %v:\n%s", got, c.missing, r)
			}
		})
	}
}

// A watchdog drawn at random, its ground truth known: renewals every
// period answered 1 until the hold is lost at a drawn instant, then one
// renewal answered 0 (a correct watchdog) or several (one that never
// learns), with the trace's order, a shift of every time and the token
// drawn too. The rule's verdict is the ground truth whatever the draw
// (none when no renewal before the loss showed what the form answers
// while its hold stands).
func TestRenewedMissingAgreesWithGroundTruth(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		period := rapid.Float64Range(300, 600).Draw(t, "period_ms")
		lost := rapid.Float64Range(period, 3*period).Draw(t, "lost_ms")
		zeros := rapid.IntRange(1, 5).Draw(t, "zeros")
		shift := rapid.Float64Range(0, 5000).Draw(t, "shift_ms")
		token := rapid.SampledFrom([]string{"fe34ec-89ee:18", "0c7f9e2a-4d1b:7", "K9Om0o1HDJXD9mF3"}).Draw(t, "token")
		cmd := func(script, reply string, m float64) WireEvent {
			return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: script + " 1 app:L 1500 " + token, Reply: reply, Call: msT(m + shift), Return: msT(m + shift + 1)}
		}
		evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, cmd("<acquire>", "nil", 1)}
		m := period
		for ; m < lost; m += period {
			evs = append(evs, cmd("<renew>", "1", m))
		}
		for i := 0; i < zeros; i++ {
			evs = append(evs, cmd("<renew>", "0", m))
			m += period
		}
		end := m + period
		ops := []Op{aAcq(0, shift, shift+5), aRel(0, end+shift, end+shift+5, Fail)}
		evs = rapid.Permutation(evs).Draw(t, "order")
		r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: time.Duration(3 * period * float64(time.Millisecond)), Wire: NewWireTrace(evs)})
		got := slices.ContainsFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeRenewedMissing })
		// what the renewal answers while its hold stands is read from the
		// run: a renewal before the loss must have answered it
		learned := lost > period
		if want := zeros >= 2 && learned; got != want {
			t.Fatalf("%d renewals answered 0 after the loss at %.0f ms, period %.0f ms: renewed missing = %v, want %v\n%s", zeros, lost, period, got, want, r)
		}
	})
}

// A process takes short holds one after another, and a watchdog drawn at
// random renews them: a correct one per hold, every period while the hold
// stands (and, drawn, one more sent as its release is answered, which
// finds the hold gone); or one that outlives its release, which keeps its
// cadence from the first grant on, through every hold and gap, answered 1
// in a hold and 0 outside. A correct watchdog is never flagged. One that
// outlives its release is flagged whenever two of its renewals in a row
// fell while the process held nothing (after a release's answer and its
// echo, before its next grant's answer), a hold between them or not, and
// one of its renewals found a hold (what the form answers while its hold
// stands is read from the run).
func TestRenewedMissingThroughShortHolds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const token = "fe34ec-89ee:18"
		period := rapid.Float64Range(300, 600).Draw(t, "period_ms")
		outlives := rapid.Bool().Draw(t, "outlives")
		cmd := func(script, reply string, m float64) WireEvent {
			return WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL", Args: script + " 1 app:L 1500 " + token, Reply: reply, Call: msT(m), Return: msT(m + 0.2)}
		}
		evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}}
		var ops []Op
		var holds [][2]float64 // grant answered, release answered
		at := 10.0
		for i := range rapid.IntRange(2, 8).Draw(t, "holds") {
			at += rapid.Float64Range(1, 3*period).Draw(t, fmt.Sprint("gap", i))
			d := rapid.Float64Range(5, 2*period).Draw(t, fmt.Sprint("hold", i))
			ops = append(ops, aAcq(0, at, at+2), aRel(0, at+d, at+d+2, OK))
			evs = append(evs, cmd("<acquire>", "nil", at+0.5), cmd("<unlock>", "1", at+d+0.5))
			holds = append(holds, [2]float64{at + 2, at + d + 2})
			if !outlives {
				for m := at + 2 + period; m < at+d; m += period {
					evs = append(evs, cmd("<renew>", "1", m))
				}
				if rapid.Bool().Draw(t, fmt.Sprint("racing", i)) { // sent as the release is answered
					evs = append(evs, cmd("<renew>", "0", at+d+2+rapid.Float64Range(0.3, 1.5).Draw(t, fmt.Sprint("lag", i))))
				}
			}
			at += d + 2
		}
		var ticks []float64
		if outlives {
			for m := holds[0][0] + period; m < at+2*period; m += period {
				ticks = append(ticks, m)
			}
		}
		inHold := func(m float64) bool {
			return slices.ContainsFunc(holds, func(h [2]float64) bool { return h[0]-1.5 < m && m < h[1]-1.5 })
		}
		idle := func(m float64) bool {
			return !slices.ContainsFunc(holds, func(h [2]float64) bool { return h[0] <= m && m <= h[1]+2 })
		}
		want, learned := false, false
		for i, m := range ticks {
			reply := "0"
			if inHold(m) {
				reply = "1"
				learned = learned || slices.ContainsFunc(holds, func(h [2]float64) bool { return h[0] < m && m < h[1]-2 }) // outside its calls
			}
			evs = append(evs, cmd("<renew>", reply, m))
			want = want || i > 0 && idle(ticks[i-1]) && idle(m)
		}
		if slices.ContainsFunc(ticks, func(m float64) bool { return !inHold(m) && !idle(m) }) {
			t.Skip("a renewal at a hold's edge, where its answer is the server's race")
		}
		if slices.ContainsFunc(ticks, func(m float64) bool {
			return slices.ContainsFunc(holds, func(h [2]float64) bool { return h[0]-2 <= m && m < h[0]-1.5 })
		}) {
			// Between an acquire's call and its command: the renewal's form
			// begins that acquire as an acquire's own would (acquireForms).
			t.Skip("a renewal first in an acquire's call")
		}
		want = want && learned
		r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: time.Duration(3 * period * float64(time.Millisecond)), Wire: NewWireTrace(evs)})
		got := slices.ContainsFunc(r.Examples, func(ex Example) bool { return ex.Shape == ShapeRenewedMissing })
		if got && !outlives || !got && want {
			t.Fatalf("watchdog outlives its release %v, flagged %v, want at least %v:\n%s", outlives, got, want, r)
		}
	})
}

// FuzzRenewedMissing feeds arbitrary commands of one client on a lock
// around a watchdog hold (their times, forms, tokens and answers drawn
// from the bytes) to the rule: it must not panic, and the order the trace
// lists them in must not change its verdict (commands at one instant keep
// the trace's order, so the times drawn are distinct).
func FuzzRenewedMissing(f *testing.F) {
	f.Add([]byte{1, 10, 1, 0, 1, 20, 0, 1, 1, 30, 0, 1, 0, 40, 2, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		replies := []string{"1", "0", "nil", "ERR no"}
		forms := []string{"<acquire>", "<renew>", "<unlock>"}
		tokens := []string{"fe34ec-89ee:18", "bb2c9a-77e1:18"}
		evs := []WireEvent{{Kind: WireBind, Client: 0, Process: 0}, {Kind: WireBind, Client: 0, Process: 1}}
		for i := 0; i+3 < len(data) && len(evs) < 64; i += 4 {
			m := float64(data[i+1])*20 + float64(i)/1000 // no two at one instant, as on a real trace
			evs = append(evs, WireEvent{Kind: WireCmd, Client: 0, Cmd: "EVAL",
				Args:  forms[int(data[i])%len(forms)] + " 1 app:L 1500 " + tokens[int(data[i+3])%len(tokens)],
				Reply: replies[int(data[i+2])%len(replies)], Call: msT(m), Return: msT(m + 1)})
		}
		ops := []Op{aAcq(0, 0, 5), aRel(0, 2600, 2605, Fail), aAcq(1, 2700, 2710), aRel(1, 4000, 4005, OK)}
		judge := func(evs []WireEvent) int {
			r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, Wire: NewWireTrace(evs)})
			n := 0
			for _, ex := range r.Examples {
				if ex.Shape == ShapeRenewedMissing {
					n++
				}
			}
			return n
		}
		reversed := slices.Clone(evs)
		slices.Reverse(reversed)
		if a, b := judge(evs), judge(reversed); a != b {
			t.Fatalf("%d findings, %d with the trace's order reversed", a, b)
		}
	})
}
