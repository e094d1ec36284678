package model

import (
	"fmt"
	"strconv"
	"strings"
)

// A server clock moved forward expires a key early; a key expires when the
// server's clock passes the instant its TTL was set from, plus the TTL. So
// a clock fault forgives a hold only if the clock got ahead of real time by
// more than the lease the hold had left (FaultAllowances: clock-jump,
// clock-strobe, clock-drift):
//
//   - a forward step of j (a jump, each flip of a strobe from its lowest
//     offset to its highest), which may come anywhere in the window (a
//     RedLock node's jump is made once a grant rests on it): an explicit
//     lease l that took effect at g runs out once g + l − j has passed,
//     while the clock is ahead (by the window's end); a strobe that heals
//     from a negative offset steps forward once more as it heals, and
//     shortens the leases still running by that step, after the window too;
//   - a drift of k > 0 seconds per second from the window's start s to its
//     end e: a lease that took effect at g runs out once g + l − k × (e −
//     max(s, g)) has passed, by e (the clock is set back as the fault
//     heals);
//   - a renewed hold (its grant asked for no lease, the watchdog renews it
//     every lease/3) keeps at least 2/3 of the watchdog lease w: a step
//     smaller than that, or a drift that gains less in a renewal period
//     (k × w/3), forgives it nothing.
//
// A clock fault whose target names no forward step and no positive drift
// (a slow clock, a target not recorded) forgives what any loss fault does:
// every hold granted before it healed, from its start.

// clockGain describes what clock fault f can do to a lease: step, its
// largest forward step within the window; healStep, the forward step of
// its heal (a strobe that heals from a negative offset); rate, a drift's
// seconds per second. known is false when its target names none of them.
type clockGain struct {
	step, healStep int64
	rate           float64
	known          bool
}

func clockGainOf(f Fault) clockGain {
	if k, ok := f.drift(); ok {
		return clockGain{rate: max(k, 0), known: k > 0}
	}
	j := int64(f.jump())
	return clockGain{step: max(j, 0), healStep: -int64(f.lowest()), known: j > 0}
}

// drift is a clock-drift fault's rate in seconds per second, from its
// target ("srv +9.000 s/s"); ok is false when the target names none.
func (f Fault) drift() (k float64, ok bool) {
	fields := strings.Fields(f.Target)
	for i := 0; i+1 < len(fields); i++ {
		if fields[i+1] != "s/s" {
			continue
		}
		if k, err := strconv.ParseFloat(fields[i], 64); err == nil {
			return k, true
		}
	}
	return 0, false
}

// clockLapse is the lapse clock fault f (over [f.Start, e]) allows hold
// h, or why none. f's allowance is AllowLoss, and h was granted no later
// than e.
func clockLapse(h *hold, f Fault, e int64, opts Options) (lapse, bool, string) {
	c := clockGainOf(f)
	if !c.known {
		return lapse{earliest: f.Start, learnAfter: e, by: f.String(), loss: true}, true, ""
	}
	if opts.fixedLease(h.grant) == 0 {
		return renewedClockLapse(h, f, e, c, opts)
	}
	best, found := lapse{}, false
	for _, a := range h.acquires() {
		l := opts.fixedLease(a)
		from := max(a.Call, h.since())
		if l <= 0 || from > e {
			continue // a reentry that asked for no lease, or set after the clock healed
		}
		if at, ok := c.runOut(from, l, f.Start, e); ok && (!found || at < best.earliest) {
			best, found = lapse{earliest: at, learnAfter: max(e, at+2*driftSlack(l)), by: f.String(), loss: true}, true
		}
	}
	if !found {
		return lapse{}, false, fmt.Sprintf("%s moved the clock forward by less than p%d's lease had left while it was ahead", f, h.grant.Process)
	}
	return best, true, ""
}

// runOut is the earliest an explicit lease of l that took effect at from
// (no later than e) runs out under c over [s, e], less the drift slack, if
// it runs out early at all.
func (c clockGain) runOut(from, l, s, e int64) (int64, bool) {
	slack := driftSlack(l)
	gain := c.step
	if c.rate > 0 {
		gain = int64(c.rate * float64(e-max(s, from)))
	}
	if at := from + l - gain - slack; at <= e {
		return max(s, at), true
	}
	if c.healStep > 0 {
		return max(s, from+l-c.healStep-slack), true
	}
	return 0, false
}

// renewedClockLapse is clockLapse for a watchdog-renewed hold: it keeps at
// least 2/3 of the lease w, so only a step of that much, or a drift that
// gains that much in one renewal period (w/3), lets it run out, from the
// fault's start.
func renewedClockLapse(h *hold, f Fault, e int64, c clockGain, opts Options) (lapse, bool, string) {
	w := opts.watchdogLease()
	gain := c.step
	if c.rate > 0 {
		gain = int64(c.rate * float64(min(e-f.Start, w/3)))
	}
	if gain < w*2/3-driftSlack(w) {
		return lapse{}, false, fmt.Sprintf("%s moved the clock %s forward, less than the 2/3 of a lease a renewed hold keeps", f, fmtDur(gain))
	}
	return lapse{earliest: f.Start, learnAfter: e, by: f.String(), loss: true}, true, ""
}
