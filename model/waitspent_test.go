package model

import (
	"bytes"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// Differential tests of Options.WaitSpent (waitspent.go): checking with it
// equals checking, without it, the history in which the test marks the
// refused TryLocks that spent their wait as cancelled by its own rule; the
// segmented verdict equals the unsplit one; and the brute force agrees.

// genWaitSpent draws a history (genHistory) scaled to milliseconds, so
// that waits reach WaitSpent's 1 ms floor, with the waits of its refused
// TryLocks redrawn around their durations; and the same history with
// those the rule covers marked cancelled instead.
func genWaitSpent(t *rapid.T, steps int, perturbIt bool) (h, marked *History, opts Options) {
	h, opts, _ = genHistory(t, genConfig{maxSteps: steps, maxLocks: 2, perturb: perturbIt})
	scaleHistory(h, &opts, int64(time.Millisecond)/10) // generator ticks become 0.1 ms
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind == Acquire && o.Outcome == Fail && !o.Blocking {
			d := o.Return - o.Call
			o.Wait = max(0, d+[]int64{0, 0, int64(5 * time.Millisecond), -int64(WaitSpentSlack) / 2, -int64(3 * time.Millisecond), -d}[rapid.IntRange(0, 5).Draw(t, "waitShift")])
		}
	}
	if err := h.Validate(); err != nil {
		t.Skip("scaled out of range")
	}
	marked = &History{Ops: append([]Op(nil), h.Ops...)}
	for i := range marked.Ops {
		o := &marked.Ops[i]
		spent := o.Kind == Acquire && o.Outcome == Fail && !o.Blocking && o.Wait > 0 &&
			time.Duration(o.Return-o.Call) >= max(time.Duration(o.Wait), time.Millisecond)-WaitSpentSlack
		o.Cancelled = o.Cancelled || spent
	}
	opts.WaitSpent = true
	return h, marked, opts
}

// scaleHistory multiplies every time and duration of h, and the watchdog
// lease of opts, by scale (the generator's ticks are nanoseconds).
func scaleHistory(h *History, opts *Options, scale int64) {
	opts.WatchdogLease *= time.Duration(scale)
	for i := range h.Ops {
		o := &h.Ops[i]
		o.Call, o.Return, o.Lease, o.Wait = o.Call*scale, o.Return*scale, o.Lease*scale, o.Wait*scale
		if o.Deadline != 0 {
			o.Deadline *= scale
		}
		if o.Enqueued != 0 {
			o.Enqueued *= scale
		}
	}
}

func TestWaitSpentMarksCancelled(t *testing.T) {
	diffChecks(t, 500)
	relaxed := 0
	rapid.Check(t, func(t *rapid.T) {
		h, marked, opts := genWaitSpent(t, 60, true)
		opts.Timeout = diffTimeout
		with := CheckLinearizability(h, opts)
		plain := opts
		plain.WaitSpent = false
		want := CheckLinearizability(marked, plain)
		if with.Verdict != want.Verdict {
			t.Fatalf("with WaitSpent %s (%s), marked by hand %s (%s)\n%s", with.Verdict, with.Explanation, want.Verdict, want.Explanation, dumpHistory(h))
		}
		if CheckLinearizability(h, plain).Verdict != with.Verdict {
			relaxed++
		}
		checkSplitEqualsWhole(t, h, opts)
	})
	t.Logf("%d histories whose verdict WaitSpent changed", relaxed)
}

func TestWaitSpentBruteForce(t *testing.T) {
	diffChecks(t, 500)
	rapid.Check(t, func(t *rapid.T) {
		h, marked, opts := genWaitSpent(t, 9, true)
		plain := opts
		plain.WaitSpent = false
		v, all := checkBrute(t, marked, plain)
		opts.Timeout = diffTimeout
		if r := CheckLinearizability(h, opts); all && r.Verdict != v {
			t.Fatalf("brute force on the marked history says %s, WaitSpent says %s: %s\n%s", v, r.Verdict, r.Explanation, dumpHistory(h))
		}
	})
}

// FuzzWaitSpent: on any well-formed history, checking with WaitSpent
// equals checking without it the history whose spent TryLocks are marked
// cancelled, and nothing panics.
func FuzzWaitSpent(f *testing.F) {
	f.Add([]byte(`{"version":1}
{"op":{"p":1,"lock":"L","kind":"acquire","call":0,"ret":1000000,"outcome":"ok"}}
{"op":{"p":2,"lock":"L","kind":"acquire","call":1500000,"ret":4000000,"wait":2000000,"outcome":"fail"}}
{"op":{"p":1,"lock":"L","kind":"release","call":2000000,"ret":2100000,"outcome":"ok"}}
{"op":{"p":2,"lock":"L","kind":"acquire","call":5000000,"ret":7500000,"wait":2000000,"outcome":"fail"}}
`))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHistory(bytes.NewReader(data))
		if err != nil || h.Validate() != nil || len(h.Ops) > 200 {
			return
		}
		marked := &History{Ops: append([]Op(nil), h.Ops...), Faults: h.Faults}
		opts := Options{MaxSegmentOps: 64, Timeout: 250 * time.Millisecond, WaitSpent: true}
		for i := range marked.Ops {
			marked.Ops[i].Cancelled = marked.Ops[i].Cancelled || opts.waitSpent(&marked.Ops[i])
		}
		a := CheckLinearizability(h, opts)
		opts.WaitSpent = false
		b := CheckLinearizability(marked, opts)
		if a.Verdict != Unknown && b.Verdict != Unknown && a.Verdict != b.Verdict {
			t.Fatalf("WaitSpent %s, marked %s", a.Verdict, b.Verdict)
		}
	})
}
