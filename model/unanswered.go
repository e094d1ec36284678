package model

import (
	"fmt"
	"time"
)

// answerBy is the latest time by which o, a release or a TryLock that ended
// info (its library errored, gave up, or never answered by the request's
// deadline), should have ended, as the run recorded what could hold it up:
// its own bound from its call (a TryLock's wait and a quarter, the client's
// ReplyTimeout, the slack), and past each window of a fault that may hold
// up its process (Fault.delays) and met it, the window's end plus the time
// its client took to reconnect (Options.reconnectAfter: as the wire trace
// recorded it, else Options.Reconnect) plus that bound again. ok is false
// for an op this does not judge: an acquire that blocks, a cancelled call,
// one that ended ok or fail, one its driver process failed (the adapter's
// hang is not the library's).
func answerBy(h *History, o *Op, opts Options, horizon int64) (by int64, ok bool) {
	if o.Outcome != Info || o.Cancelled || o.DriverFailed || (o.Kind != Release && (o.Kind != Acquire || o.Blocking)) {
		return 0, false
	}
	own := int64(opts.ReplyTimeout) + int64(opts.tryLockSlack())
	if o.Kind == Acquire {
		own += o.Wait + o.Wait/4
	}
	by = o.Call + own
	for _, f := range h.Faults {
		end := f.end(horizon)
		if f.delays(o.Process) && f.Start <= o.Return && end >= o.Call {
			by = max(by, end+opts.reconnectAfter(o.Process, f.Start, end)+own)
		}
	}
	return by, true
}

// hungCalls are the contract violations of h's releases and TryLocks held
// past answerBy, each process's first call apart (it pays what is left of
// its client's start-up): a hang of the library, beyond every fault the
// run recorded. Both the contract and the fault-allowance checkers report
// them.
func hungCalls(h *History, opts Options, horizon int64) []Example {
	first := firstCalls(h)
	var out []Example
	for i := range h.Ops {
		o := &h.Ops[i]
		if by, ok := answerBy(h, o, opts, horizon); ok && o.Return > by && first[o.Process] != o {
			out = append(out, unansweredExample(h, o, by))
		}
	}
	return out
}

// unansweredExample is the contract violation of o, which ended at
// o.Return though everything that could hold it up let it end by by.
func unansweredExample(h *History, o *Op, by int64) Example {
	what := "release"
	if o.Kind == Acquire {
		what = fmt.Sprintf("TryLock with a wait of %s", time.Duration(o.Wait))
	}
	return Example{Lock: o.Lock, Ops: []Op{*o}, Faults: overlapping(h, []Op{*o}), Class: ClassContract, Shape: ShapeHung,
		Summary: fmt.Sprintf("p%d's %s got no answer for %s (%s): the faults that could hold it up, its reconnection and its own bound let it end by %s",
			o.Process, what, time.Duration(o.Return-o.Call), o.Error, fmtTime(by)),
		Cause: "the library held the call past every bound the run recorded: a hang, not a fault's delay"}
}
