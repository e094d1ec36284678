package model

import (
	"fmt"
	"slices"
	"strings"
)

// A hold lost with no fault that could end it ended at some client's
// command. A correct lock's client touches a lock it does not hold only
// inside a call of its own (an acquire that waits, a stray release); a
// command sent outside every call of its process is a watchdog's renewal,
// which a correct watchdog sends only for a hold it still has. The wire
// trace shows such commands of other processes' clients while the lost
// hold was believed: the evidence of who took the lock ("p0 sent EVALSHA …
// at 3.21s, answered 1, outside any call of p0's, 40ms after p1's grant").
// It is quoted, not judged: what a reply means is the lock's own business.

// callSpans returns, for each lock and process, the spans of the process's
// calls on the lock, its acquires and releases (an op still in flight at
// the end: until horizon). A critical section is not a call: a watchdog
// renews while its holder works.
func callSpans(h *History, horizon int64) map[string]map[int][]span {
	out := map[string]map[int][]span{}
	for _, o := range h.Ops {
		if o.Lock == "" || (o.Kind != Acquire && o.Kind != Release) {
			continue
		}
		end := o.Return
		if end == 0 || o.Outcome == Info {
			end = max(end, horizon)
		}
		if out[o.Lock] == nil {
			out[o.Lock] = map[int][]span{}
		}
		out[o.Lock][o.Process] = append(out[o.Lock][o.Process], span{o.Call, end})
	}
	return out
}

// quoteTakers appends to ex's cause, when ex is a lost hold, the answered
// commands on its lock that other processes' clients sent after the
// hold's grant was answered and before its release was called, outside
// every call of their own (at most maxQuoted, the first first).
func quoteTakers(ex *Example, w *WireTrace, calls map[string]map[int][]span) {
	if w == nil || ex.Shape != ShapeHoldLost || len(ex.Ops) < 2 {
		return
	}
	grant, end := ex.Ops[0], ex.Ops[len(ex.Ops)-1]
	others := func(p int) bool { return p != grant.Process }
	sent := backgroundCmds(w, calls[ex.Lock], ex.Lock, others, grant.Return, end.Call)
	var quoted []string
	for _, e := range sent[:min(len(sent), maxQuoted)] {
		quoted = append(quoted, fmt.Sprintf("%s, outside any call of p%d's, %s after p%d's grant", e.Quote(), e.Process, fmtDur(e.Call-grant.Return), grant.Process))
	}
	if len(quoted) > 0 {
		ex.Cause = strings.TrimSpace(ex.Cause + " — wire, other clients' commands on the lock while p" + fmt.Sprint(grant.Process) +
			" held it (a watchdog's, which a correct one sends only for a hold it still has): " + strings.Join(quoted, "; "))
	}
}

// nameTakeBack names "took the lock back" an anomaly where a process was
// answered ok on the lock after another's grant, with nothing of its own
// in between (a foreign release, or a release or re-entry that did not
// learn the loss: the example's ops are its grant, the other's grant and
// that call), when the wire shows how: after the other's grant was
// answered, its client sent a command on the lock outside every call of
// its process (a watchdog's renewal, say), and Redis answered it. The ok
// that followed is what says the command took effect; the command alone
// is not judged (a correct watchdog may renew a hold it lost, and be
// refused). A release that did not learn the loss (ShapeUnlockAfterLapse)
// is a double grant once named so: the lock was taken back, and the
// release's ok was true.
func nameTakeBack(ex *Example, w *WireTrace, calls map[string]map[int][]span) {
	if w == nil || !slices.Contains([]Shape{ShapeForeignRelease, ShapeDoubleGrant, ShapeUnlockAfterLapse}, ex.Shape) || len(ex.Ops) != 3 {
		return
	}
	taker, other, answered := ex.Ops[0], ex.Ops[1], ex.Ops[2]
	if answered.Process != taker.Process || other.Process == taker.Process || answered.Outcome != OK {
		return
	}
	self := func(p int) bool { return p == taker.Process }
	sent := backgroundCmds(w, calls[ex.Lock], ex.Lock, self, other.Return, answered.Call)
	if len(sent) == 0 {
		return
	}
	call := "release"
	if answered.Kind != Release {
		call = "re-entry"
	}
	e := sent[0]
	if ex.Shape == ShapeUnlockAfterLapse {
		ex.Shape = ShapeDoubleGrant
	}
	ex.Summary = fmt.Sprintf("p%d took the lock back from p%d: %s", taker.Process, other.Process, ex.Summary)
	ex.Cause = strings.TrimSpace(fmt.Sprintf("%s — wire, how p%d took it back: %s, outside any call of p%d's, %s after p%d's grant, and p%d's %s then answered ok",
		ex.Cause, taker.Process, e.Quote(), taker.Process, fmtDur(e.Call-other.Return), other.Process, taker.Process, call))
}

// backgroundCmds returns the answered commands on lock, other than
// subscriptions, that the clients of the processes whose ask says so sent
// in (from, to) outside every call of their process on the lock (calls, by
// process), the first first.
func backgroundCmds(w *WireTrace, calls map[int][]span, lock string, whose func(int) bool, from, to int64) []WireEvent {
	var sent []WireEvent
	for _, e := range w.Events {
		if e.Kind == WireCmd && e.Return > 0 && whose(e.Process) && e.Call > from && e.Call < to &&
			!isSubscribe(e.Cmd) && namesLock(e.Args, lock) && !within(e.Call, calls[e.Process]) {
			sent = append(sent, e)
		}
	}
	slices.SortFunc(sent, func(a, b WireEvent) int { return compare(a.Call, b.Call) })
	return sent
}

// within reports whether t falls in one of spans.
func within(t int64, spans []span) bool {
	for _, s := range spans {
		if s.from <= t && t <= s.to {
			return true
		}
	}
	return false
}
