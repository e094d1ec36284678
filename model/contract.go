package model

import (
	"fmt"
	"time"
)

// DefaultTryLockSlack is how long past its wait (plus a quarter of the
// wait) a TryLock may take to answer outside fault windows: a round trip, a
// scheduler's hiccup on a busy machine, a driver's pipe.
const DefaultTryLockSlack = 250 * time.Millisecond

// CheckTiming checks each call against the Locker contract's timing: a
// TryLock that answered (ok or fail, not cancelled) while no window of a
// fault that may hold up its process was open (delayedAt: one that hits
// it, of a kind that delays calls) must answer within its wait plus a
// slack (Options.TryLockSlack, plus a quarter of the wait). A TryLock that
// overstays its wait holds its caller up past what it asked for; a
// violation is ClassContract. The wait bounds retries, not a request in
// flight, so a call that such a fault met is not judged. A release or a
// TryLock that ended info (an error, or no answer by the request's
// deadline) must have ended by what the faults that met it allowed
// (answerBy: past each, the client's recorded reconnection and its own
// bound): one held past that is a hang of the library. Neither rule
// judges a process's first call: it pays what is left of its client's start-up
// (code paths, threads and timers its client uses for the first time).
// Measured on Redisson's driver on a busy 2-core machine, the first TryLock
// of each process overshot its wait by 56-138 ms, later ones by at most
// 46 ms; under make test, 280-300 ms.
func CheckTiming(h *History, opts Options) Result {
	start := time.Now()
	res := Result{Checker: CheckContract, Verdict: Valid}
	slack := opts.tryLockSlack()
	if slack < 0 {
		res.Explanation = "TryLock timing not checked (off)"
		return res
	}
	horizon := h.horizon()
	first := firstCalls(h)
	judged := 0
	hung := hungCalls(h, opts, horizon)
	unanswered := len(hung)
	res.Count = unanswered
	res.Examples = hung[:min(len(hung), opts.maxExamples())]
	for i := range h.Ops {
		o := &h.Ops[i]
		if _, ok := answerBy(h, o, opts, horizon); ok {
			continue // hungCalls judged it
		}
		if o.Kind != Acquire || o.Blocking || o.Cancelled || o.Outcome == Info || first[o.Process] == o || delayedAt(h, o, horizon) {
			continue
		}
		judged++
		allowed := time.Duration(o.Wait) + time.Duration(o.Wait)/4 + slack
		if took := time.Duration(o.Return - o.Call); took > allowed {
			res.Count++
			if len(res.Examples) < opts.maxExamples() {
				res.Examples = append(res.Examples, Example{Lock: o.Lock, Ops: []Op{*o}, Class: ClassContract, Shape: ShapeLateAnswer,
					Summary: fmt.Sprintf("p%d's TryLock with a wait of %s answered %s after %s (allowed %s, no fault on its process)", o.Process, time.Duration(o.Wait), o.Outcome, took, allowed)})
			}
		}
	}
	res.Explanation = fmt.Sprintf("%d TryLocks outside the faults that hit their process (and not their process's first call) answered within their wait + %s + wait/4", judged, slack)
	if late := res.Count - unanswered; late > 0 {
		res.Explanation = fmt.Sprintf("%d of %d TryLocks outside the faults that hit their process (and not their process's first call) answered later than their wait + %s + wait/4", late, judged, slack)
	}
	if res.Count > 0 {
		res.Verdict = Invalid
	}
	if unanswered > 0 {
		res.Explanation += fmt.Sprintf("; %d releases or TryLocks ended without an answer past every bound the run recorded", unanswered)
	}
	res.Elapsed = time.Since(start)
	return res
}

// firstCalls is each process's first acquire or release (by call).
func firstCalls(h *History) map[int]*Op {
	first := map[int]*Op{}
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Acquire && o.Kind != Release {
			continue
		}
		if f, ok := first[o.Process]; !ok || o.Call < f.Call {
			first[o.Process] = o
		}
	}
	return first
}

// faultedAt reports whether a fault window overlaps o.
func faultedAt(h *History, o *Op, horizon int64) bool {
	for _, f := range h.Faults {
		if f.Start <= o.Return && f.end(horizon) >= o.Call {
			return true
		}
	}
	return false
}

func (o Options) tryLockSlack() time.Duration {
	if o.TryLockSlack == 0 {
		return DefaultTryLockSlack
	}
	return o.TryLockSlack
}
