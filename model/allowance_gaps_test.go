package model

import (
	"errors"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// handedOn is p0 granted at 0 and p1 granted at grant (it asked at 10) and
// gone again at 4000, before p0's first answer after the fault: p0's
// release at 5700, answered out.
func handedOn(grant float64, out Outcome) []Op {
	return []Op{aAcq(0, 0, 5), aAcq(1, 10, grant), aRel(1, 4000, 4005, OK), aRel(0, 5700, 5705, out)}
}

// leased is p0 granted an explicit lease of lease at 0 and p1 granted at
// grant; p0's release after the fault is refused.
func leased(lease, grant float64) []Op {
	return []Op{aAcqLease(0, 0, 5, lease), aAcq(1, 10, grant), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}
}

func gapCases() []allowCase {
	stall := aFault("client-stall", "w0", 2000, 5500, 0)
	restart := aFault("redis-restart-empty", "srv", 500, 510)
	split := aFault("sentinel-pause-master", "m", 500, 3000)
	bound := func(d time.Duration) Options { return Options{SplitBrainBound: d} }
	return []allowCase{
		// Rule 1: the holder's first answered call after the lapse is judged
		// whoever holds by then.
		{name: "lapse: the holder's release refused after the other left", ops: handedOn(3500, Fail), faults: []Fault{stall}},
		{name: "lapse: the holder's release answered ok after the other left", ops: handedOn(3500, OK), faults: []Fault{stall},
			beyond: true, cause: "release answered ok"},
		{name: "lapse: a release answered ok with no other grant", faults: []Fault{stall},
			ops: []Op{aAcq(0, 0, 5), aRel(0, 5700, 5705, OK)}},
		{name: "no lapse: a stall too short for the lease to run out, then an ok release", faults: []Fault{aFault("client-stall", "w0", 2000, 2500, 0)},
			ops: []Op{aAcq(0, 0, 5), aRel(0, 5700, 5705, OK)}},
		{name: "lapse: a reentry granted afresh on the free lock, then ok releases", faults: []Fault{stall},
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 3500), aRel(1, 4000, 4005, OK), aAcq(0, 5700, 5705), aRel(0, 5710, 5715, OK), aRel(0, 5720, 5725, Fail)}},
		{name: "lapse: a reentry granted while the other held", faults: []Fault{stall}, beyond: true, cause: "did not learn",
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 3500), aAcq(0, 5700, 5705), aRel(1, 5800, 5805, OK), aRel(0, 5810, 5815, OK), aRel(0, 5820, 5825, Fail)}},
		{name: "explicit lease ran out: the release after the other left refused",
			ops: []Op{aAcqLease(0, 0, 5, 500), aAcq(1, 10, 600), aRel(1, 700, 705, OK), aRel(0, 900, 905, Fail)}},
		{name: "explicit lease ran out: the release after the other left answered ok", beyond: true, cause: "release answered ok",
			ops: []Op{aAcqLease(0, 0, 5, 500), aAcq(1, 10, 600), aRel(1, 700, 705, OK), aRel(0, 900, 905, OK)}},
		{name: "restart empty: the old holder's release after the other left answered ok", faults: []Fault{restart}, beyond: true, cause: "release answered ok",
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 520, 600), aRel(1, 700, 705, OK), aRel(0, 800, 805, OK)}},
		{name: "failover: the old master may answer the old holder's release", faults: []Fault{aFault("sentinel-failover", "m", 500, 510)},
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 520, 600), aRel(1, 700, 705, OK), aRel(0, 800, 805, OK)}},
		{name: "quorum lock: a member the lapse left may answer the release", faults: []Fault{restart}, opts: Options{SplitVotes: true},
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 520, 600), aRel(1, 700, 705, OK), aRel(0, 800, 805, OK)}},

		// Rule 3: a clock fault forgives only the lease left under its jump
		// or drift. p0's explicit lease of 1000 ran from 0 (slack 22 ms).
		{name: "clock jump larger than the lease left", ops: leased(1000, 650), faults: []Fault{aFault("clock-jump", "srv +500ms", 600, 2500)}},
		{name: "clock jump smaller than the lease left: granted once the rest ran out under it", ops: leased(1000, 690),
			faults: []Fault{aFault("clock-jump", "srv +300ms", 600, 2500)}},
		{name: "clock jump smaller than the lease left: granted before the rest ran out under it", ops: leased(1000, 670),
			faults: []Fault{aFault("clock-jump", "srv +300ms", 600, 2500)}, beyond: true, cause: "no earlier than"},
		{name: "clock jump healed before the lease ran out under it", ops: leased(1000, 700),
			faults: []Fault{aFault("clock-jump", "srv +300ms", 600, 650)}, beyond: true, cause: "less than"},
		{name: "clock drift gaining more than the lease left", ops: leased(1000, 650), faults: []Fault{aFault("clock-drift", "srv +9.000 s/s", 600, 700)}},
		{name: "clock drift gaining less than the lease left", ops: leased(1000, 750),
			faults: []Fault{aFault("clock-drift", "srv +1.000 s/s", 600, 700)}, beyond: true, cause: "less than"},
		{name: "clock drift past 2/3 of a renewal's lease", ops: stalled(700, Fail), faults: []Fault{aFault("clock-drift", "srv +9.000 s/s", 600, 1600)}},
		{name: "clock drift under 2/3 of a renewal's lease", ops: stalled(700, Fail),
			faults: []Fault{aFault("clock-drift", "srv +1.000 s/s", 600, 3600)}, beyond: true, cause: "forward"},
		{name: "clock strobe healing forward: granted once the lease ran out", ops: leased(2000, 1750),
			faults: []Fault{aFault("clock-strobe", "srv -250ms/+250ms every 5ms", 600, 700)}},
		{name: "clock strobe healing forward: granted before", ops: leased(2000, 1700),
			faults: []Fault{aFault("clock-strobe", "srv -250ms/+250ms every 5ms", 600, 700)}, beyond: true, cause: "no earlier than"},
		{name: "clock fault naming no step forgives as a loss", ops: leased(1000, 650), faults: []Fault{aFault("clock-jump", "srv", 600, 2500)}},

		// Rule 4: a split brain ends at the second master's demotion.
		{name: "split brain: both grants before the demotion", faults: []Fault{split}, opts: bound(time.Second),
			ops: []Op{aAcq(0, 3900, 3905), aAcq(1, 3950, 3990), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "split brain: both grants after the demotion", faults: []Fault{split}, opts: bound(time.Second), beyond: true, cause: "both believed",
			ops: []Op{aAcq(0, 4100, 4105), aAcq(1, 4150, 4190), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "split brain: the old copy answers a release before the demotion", ops: stalled(600, OK), faults: []Fault{split}, opts: bound(3 * time.Second)},
		{name: "split brain: a release answered ok after the demotion", ops: stalled(600, OK), faults: []Fault{split}, opts: bound(2 * time.Second),
			beyond: true, cause: "release answered ok"},
		{name: "split brain by default: demoted after the history", ops: stalled(600, OK), faults: []Fault{split}},

		// Rule 5: the lease bound is excused only by a fault that may hold
		// up the refused process.
		{name: "lease bound: refused past it while its own requests were slowed", ops: crashed(3100),
			faults: []Fault{aFault("proxy-latency", "c1", 3000, 3300, 1)}},
		{name: "lease bound: refused past it while another client's link was slowed", ops: crashed(3100),
			faults: []Fault{aFault("proxy-latency", "c2", 3000, 3300, 2)}, beyond: true, cause: "lease bound"},
		{name: "lease bound: refused past it while one of its own commands was refused", ops: crashed(3100),
			faults: []Fault{aFault("refuse-once", "c1", 3000, 3300, 1)}, beyond: true, cause: "lease bound"},
		{name: "lease bound: refused past it during the server's pause", ops: crashed(3100),
			faults: []Fault{aFault("redis-pause", "srv", 3000, 3300)}},
		{name: "lease bound: a blocking acquire refused past it, its own link slowed for part of the wait", ops: crashedWait(3100, 3000),
			faults: []Fault{aFault("proxy-latency", "c1", 4000, 4130, 1)}, beyond: true, cause: "lease bound"},
		{name: "lease bound: a blocking acquire refused past it, its own link slowed for all of the wait", ops: crashedWait(3100, 3000),
			faults: []Fault{aFault("proxy-latency", "c1", 3000, 5900, 1)}},
		{name: "lease bound: a blocking acquire refused past it, its own client paused for part of the wait", ops: crashedWait(3100, 3000),
			faults: []Fault{aFault("hiccup", "driver p1", 4000, 4130, 1)}, beyond: true, cause: "lease bound"},
	}
}

// Rules 1, 3, 4 and 5 of issue 40 item 3: a case just inside each rule's
// allowance and one just outside it.
func TestAllowanceGaps(t *testing.T) {
	for _, c := range gapCases() {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.WatchdogLease = leaseMs * time.Millisecond
			h := &History{Ops: c.ops, Faults: c.faults}
			if err := h.Validate(); err != nil {
				t.Fatal(err)
			}
			r := CheckBeyond(h, opts)
			if got := r.Verdict == Invalid; got != c.beyond || r.Verdict == Unknown {
				t.Fatalf("verdict %s, want beyond = %v:\n%s", r.Verdict, c.beyond, r)
			}
			said := false
			for _, ex := range r.Examples {
				said = said || strings.Contains(ex.Summary+ex.Cause, c.cause)
			}
			if c.beyond && !said {
				t.Errorf("no example says %q:\n%s", c.cause, r)
			}
		})
	}
}

// Rule 2: a fault name FaultAllowances does not list makes the
// fault-allowance verdict Unknown, naming it, unless an anomaly is beyond
// even a loss; Options.LossyFaults may name it.
func TestUnknownFaultName(t *testing.T) {
	opts := Options{WatchdogLease: leaseMs * time.Millisecond}
	mystery := aFault("nemesis-mystery", "srv", 500, 510)
	clean := &History{Ops: stalled(600, Fail), Faults: []Fault{mystery}}
	r := CheckBeyond(clean, opts)
	if r.Verdict != Unknown || !strings.Contains(r.Explanation, "nemesis-mystery") {
		t.Fatalf("an unknown fault: %s", r)
	}
	if err := opts.unknownFaults(clean.Faults); !errors.Is(err, errUnknownFault) {
		t.Fatalf("unknownFaults = %v", err)
	}
	alone := &History{Ops: []Op{aAcq(0, 0, 5), aRel(0, 700, 705, OK)}, Faults: []Fault{mystery}}
	if rep := Check(alone, opts); rep.Verdict != Unknown {
		t.Fatalf("the report of a history with an unknown fault: %s", rep)
	}
	lossy := opts
	lossy.LossyFaults = []string{"nemesis-mystery"}
	if r := CheckBeyond(clean, lossy); r.Verdict != Valid {
		t.Fatalf("an unknown fault named lossy: %s", r)
	}
	if err := opts.unknownFaults([]Fault{aFault("client-stall", "w0", 1, 2, 0)}); err != nil {
		t.Fatalf("a listed fault: %v", err)
	}
	// Granted after the fault healed: beyond even a loss.
	after := &History{Faults: []Fault{mystery}, Ops: []Op{aAcq(0, 520, 525), aAcq(1, 530, 600), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}}
	if r := CheckBeyond(after, opts); r.Verdict != Invalid || !strings.Contains(r.Explanation, "nemesis-mystery") {
		t.Fatalf("an anomaly beyond an unknown fault: %s", r)
	}
}

// Rule 5: a late TryLock, and a long wait, are excused only by a fault
// that may hold up their own process; one that allows nothing only for its
// window and AfterNoneFault.
func TestExcusedOnlyByOwnFaults(t *testing.T) {
	ms := func(n float64) int64 { return msT(n) }
	late := Op{Process: 5, Lock: "L", Kind: Acquire, Wait: ms(100), Call: ms(1000), Return: ms(2000), Outcome: Fail}
	wait := Op{Process: 5, Lock: "L", Kind: Acquire, Blocking: true, Call: ms(1000), Return: ms(5000), Outcome: OK}
	cases := []struct {
		name        string
		fault       Fault
		timing, max Verdict // CheckTiming's, and CheckLive's with MaxWait 3 s
	}{
		{"no fault", Fault{}, Invalid, Invalid},
		{"refuse-once of another process", aFault("refuse-once", "c3", 900, 2100, 3), Invalid, Invalid},
		{"client-interrupt of another process", aFault("client-interrupt", "w3", 900, 2100, 3), Invalid, Invalid},
		{"refuse-once of its own", aFault("refuse-once", "c5", 900, 2100, 5), Invalid, Invalid},
		{"stall of another process", aFault("client-stall", "w3", 900, 5100, 3), Invalid, Invalid},
		{"stall of its own", aFault("client-stall", "w5", 900, 5100, 5), Valid, Valid},
		{"server pause", aFault("redis-pause", "srv", 900, 2100), Valid, Valid},
		{"latency on its link, 1 s: a wait of 4 s less 1.25", aFault("proxy-latency", "c5", 1000, 2000, 5), Valid, Valid},
		{"latency on its link, 0.5 s: a wait of 4 s less 0.75", aFault("proxy-latency", "c5", 1000, 1500, 5), Valid, Invalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{WatchdogLease: leaseMs * time.Millisecond, MaxWait: WaitBound(3 * time.Second)}
			var faults []Fault
			if c.fault.Name != "" {
				faults = []Fault{c.fault}
			}
			first := Op{Process: 5, Lock: "L", Kind: Release, Outcome: Fail} // p5's first call is not judged
			if r := CheckTiming(&History{Ops: []Op{first, late}, Faults: faults}, opts); r.Verdict != c.timing {
				t.Errorf("timing: %s, want %s", r, c.timing)
			}
			if r := CheckLive(&History{Ops: []Op{wait}, Faults: faults}, opts); r.Verdict != c.max {
				t.Errorf("liveness (max wait): %s, want %s", r, c.max)
			}
		})
	}
}

// Rule 5, derived bound: a wait on a free lock is covered only by the
// windows of the faults that may hold up the waiter.
func TestFreeWaitCoveredByOwnFaults(t *testing.T) {
	wait := Op{Process: 5, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(0), Return: msT(4000), Outcome: OK}
	opts := Options{WatchdogLease: leaseMs * time.Millisecond} // bound: 2 leases, 3 s
	for _, c := range []struct {
		fault Fault
		want  Verdict
	}{
		{aFault("client-stall", "w3", 0, 4000, 3), Invalid},
		{aFault("refuse-subscribe", "c3", 0, 4000, 3), Invalid},
		{aFault("client-interrupt", "w5", 0, 4000, 5), Invalid},
		{aFault("refuse-subscribe", "c5", 0, 4000, 5), Valid},
		{aFault("redis-pause", "srv", 0, 4000), Valid},
	} {
		if r := CheckLive(&History{Ops: []Op{wait}, Faults: []Fault{c.fault}}, opts); r.Verdict != c.want {
			t.Errorf("%s: %s, want %s", c.fault, r, c.want)
		}
	}
}

// A correct lock under a stall of its holder is never beyond the fault:
// p0's watchdog renews every lease/3 (or its explicit lease runs out) and
// stops while p0 is stalled; p1 is granted only once p0's key is gone, and
// p0's release after the stall answers ok only if its key is still there,
// whoever held in between (rule 1).
func TestStalledHolderGroundTruth(t *testing.T) {
	const w, tick = leaseMs, leaseMs / 3
	rapid.Check(t, func(t *rapid.T) {
		s := float64(rapid.IntRange(100, 3000).Draw(t, "stall"))
		e := s + float64(rapid.IntRange(10, 3000).Draw(t, "length"))
		lease := float64(0)
		if rapid.Bool().Draw(t, "explicit") {
			lease = float64(rapid.IntRange(200, 3000).Draw(t, "lease"))
		}
		gone := lease // when p0's key expires (-1: never)
		if lease == 0 {
			last := float64(int(s)/tick) * tick // the last renewal before the stall
			next := max(last+tick, e)           // the next one: overdue ones fire as the stall ends
			gone = -1
			if last+w <= next {
				gone = last + w
			}
		}
		ops := []Op{aAcq(0, 0, 0)}
		if lease > 0 {
			ops[0] = aAcqLease(0, 0, 0, lease)
		}
		tr := e + float64(rapid.IntRange(1, 2000).Draw(t, "release"))
		out := OK
		if gone >= 0 && tr >= gone {
			out = Fail
		}
		ops = append(ops, aRel(0, tr, tr+1, out))
		t1 := float64(rapid.IntRange(10, int(e)+2000).Draw(t, "try"))
		p1end := t1 + float64(rapid.IntRange(5, 2000).Draw(t, "hold"))
		if (gone >= 0 && t1 >= gone) || t1 > tr+1 {
			ops = append(ops, aAcq(1, t1, t1+1), aRel(1, p1end, p1end+1, OK))
		} else {
			ops = append(ops, Op{Process: 1, Lock: "L", Kind: Acquire, Wait: msT(1), Call: msT(t1), Return: msT(t1 + 1), Outcome: Fail})
		}
		h := &History{Ops: ops, Faults: []Fault{aFault("client-stall", "w0", s, e, 0)}}
		if err := h.Validate(); err != nil {
			t.Skip(err)
		}
		if r := CheckBeyond(h, Options{WatchdogLease: w * time.Millisecond}); r.Verdict != Valid {
			t.Fatalf("a correct lock beyond a stall:\n%s\n%s", r, dumpHistory(h))
		}
	})
}
