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
// calls on the lock (an op still in flight at the end: until horizon).
func callSpans(h *History, horizon int64) map[string]map[int][]span {
	out := map[string]map[int][]span{}
	for _, o := range h.Ops {
		if o.Lock == "" {
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
	var sent []WireEvent
	for _, e := range w.Events {
		if e.Kind == WireCmd && e.Return > 0 && e.Process != grant.Process && e.Call > grant.Return && e.Call < end.Call &&
			!isSubscribe(e.Cmd) && namesLock(e.Args, ex.Lock) && !within(e.Call, calls[ex.Lock][e.Process]) {
			sent = append(sent, e)
		}
	}
	slices.SortFunc(sent, func(a, b WireEvent) int { return compare(a.Call, b.Call) })
	var quoted []string
	for _, e := range sent[:min(len(sent), maxQuoted)] {
		quoted = append(quoted, fmt.Sprintf("%s, outside any call of p%d's, %s after p%d's grant", e.Quote(), e.Process, fmtDur(e.Call-grant.Return), grant.Process))
	}
	if len(quoted) > 0 {
		ex.Cause = strings.TrimSpace(ex.Cause + " — wire, other clients' commands on the lock while p" + fmt.Sprint(grant.Process) +
			" held it (a watchdog's, which a correct one sends only for a hold it still has): " + strings.Join(quoted, "; "))
	}
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
