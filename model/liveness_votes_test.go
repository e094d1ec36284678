package model

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

const ms = int64(time.Millisecond)

// A stretch of waiting on a free lock longer than FreeWait is a lost
// wake-up, unless SplitWait allows it (Redisson's RedLock waits out a
// member's share); beyond FreeWait + SplitWait it is one again.
func TestLivenessSplitWait(t *testing.T) {
	h := &History{Ops: []Op{
		{Process: 1, Lock: "L", Kind: Acquire, Blocking: true, Call: 0, Return: 1 * ms, Outcome: OK},
		{Process: 1, Lock: "L", Kind: Release, Call: 10 * ms, Return: 11 * ms, Outcome: OK},
		{Process: 2, Lock: "L", Kind: Acquire, Blocking: true, Call: 5 * ms, Return: 1600 * ms, Outcome: OK},
		{Process: 2, Lock: "L", Kind: Release, Call: 1601 * ms, Return: 1602 * ms, Outcome: OK},
	}}
	opts := Options{FreeWait: 500 * time.Millisecond, WatchdogLease: 10 * time.Second}
	if r := CheckLive(h, opts); r.Verdict != Invalid {
		t.Fatalf("no split wait: %s (%s), want invalid: p2 waited 1.6 s on a free lock", r.Verdict, r.Explanation)
	}
	opts.SplitWait = 1500 * time.Millisecond
	if r := CheckLive(h, opts); r.Verdict != Valid {
		t.Fatalf("split wait 1.5 s: %s (%s), want valid", r.Verdict, r.Explanation)
	}
	h.Ops[2].Return, h.Ops[3].Call, h.Ops[3].Return = 2100*ms, 2101*ms, 2102*ms
	if r := CheckLive(h, opts); r.Verdict != Invalid {
		t.Fatalf("a 2.1 s stretch with a split wait of 1.5 s: %s (%s), want invalid", r.Verdict, r.Explanation)
	}
}

// SplitWait only relaxes liveness: on generated histories, scaled to
// milliseconds, every free-lock stretch it flags is flagged without it.
func TestLivenessSplitWaitOnlyRelaxes(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 60, maxLocks: 2, perturb: true})
		scaleHistory(h, &opts, ms)
		opts.FreeWait = time.Duration(rapid.SampledFrom([]int64{20, 100, 500}).Draw(t, "freeWait")) * time.Millisecond
		plainN, plain := checkFreeStretches(h, opts)
		opts.SplitWait = time.Duration(rapid.IntRange(1, 2000).Draw(t, "splitWait")) * time.Millisecond
		splitN, split := checkFreeStretches(h, opts)
		if splitN > plainN {
			t.Fatalf("SplitWait flags %d stretches, without it %d\n%s", splitN, plainN, dumpHistory(h))
		}
		flagged := map[Op]bool{}
		for _, e := range plain {
			flagged[e.Ops[0]] = true
		}
		for _, e := range split {
			if !flagged[e.Ops[0]] && plainN <= opts.maxExamples() {
				t.Fatalf("SplitWait flags %v, which without it is not\n%s", e.Ops[0], dumpHistory(h))
			}
		}
	})
}
