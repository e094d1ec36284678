package model

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

const ms = int64(time.Millisecond)

// A waiter that waits on a free lock while another process's acquire is
// in flight is a lost wake-up for a plain lock, and contention for a
// quorum lock (SplitVotes): the other attempt may hold the members it
// needs.
func TestLivenessSplitVotesCoversInFlight(t *testing.T) {
	h := &History{Ops: []Op{
		{Process: 1, Lock: "L", Kind: Acquire, Blocking: true, Call: 0, Return: 1 * ms, Outcome: OK},
		{Process: 1, Lock: "L", Kind: Release, Call: 10 * ms, Return: 11 * ms, Outcome: OK},
		{Process: 2, Lock: "L", Kind: Acquire, Blocking: true, Call: 5 * ms, Return: 1600 * ms, Outcome: OK},
		{Process: 3, Lock: "L", Kind: Acquire, Blocking: false, Wait: 1590 * ms, Call: 8 * ms, Return: 1598 * ms, Outcome: Fail},
		{Process: 2, Lock: "L", Kind: Release, Call: 1601 * ms, Return: 1602 * ms, Outcome: OK},
	}}
	opts := Options{FreeWait: 500 * time.Millisecond, WatchdogLease: 10 * time.Second}
	if r := CheckLive(h, opts); r.Verdict != Invalid {
		t.Fatalf("plain lock: %s (%s), want invalid: p2 waited 1.6 s on a free lock", r.Verdict, r.Explanation)
	}
	opts.SplitVotes = true
	if r := CheckLive(h, opts); r.Verdict != Valid {
		t.Fatalf("split votes: %s (%s), want valid: p3's attempt was in flight", r.Verdict, r.Explanation)
	}
	h.Ops[3].Return, h.Ops[3].Wait = 100*ms, 92*ms // p3 gives up early: 1.5 s free, no one in flight
	if r := CheckLive(h, opts); r.Verdict != Invalid {
		t.Fatalf("split votes, nothing in flight: %s (%s), want invalid", r.Verdict, r.Explanation)
	}
}

// SplitVotes only relaxes liveness: on generated histories, scaled to
// milliseconds, every free-lock wait it flags is flagged without it.
func TestLivenessSplitVotesOnlyRelaxes(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, opts, _ := genHistory(t, genConfig{maxSteps: 60, maxLocks: 2, perturb: true})
		for i := range h.Ops {
			o := &h.Ops[i]
			o.Call, o.Return, o.Lease, o.Wait = o.Call*ms, o.Return*ms, o.Lease*ms, o.Wait*ms
			if o.Deadline != 0 {
				o.Deadline *= ms
			}
			if o.Enqueued != 0 {
				o.Enqueued *= ms
			}
		}
		opts.WatchdogLease *= time.Millisecond
		opts.FreeWait = time.Duration(rapid.SampledFrom([]int64{20, 100, 500}).Draw(t, "freeWait")) * time.Millisecond
		plainN, plain := checkFreeStretches(h, opts)
		opts.SplitVotes = true
		votesN, votes := checkFreeStretches(h, opts)
		if votesN > plainN || len(votes) > len(plain) {
			t.Fatalf("SplitVotes flags %d waits, without it %d\n%s", votesN, plainN, dumpHistory(h))
		}
		flagged := map[Op]bool{}
		for _, e := range plain {
			flagged[e.Ops[0]] = true
		}
		for _, e := range votes {
			if !flagged[e.Ops[0]] && len(plain) < opts.maxExamples() {
				t.Fatalf("SplitVotes flags %v, which without it is not\n%s", e.Ops[0], dumpHistory(h))
			}
		}
	})
}
