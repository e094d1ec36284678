package model

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A watchdog hold is renewed every third of its lease while its holder
// believes it holds. The wire trace shows whether the holder's client sent
// anything on the lock's key (Redis names it in every renewal) while it
// held: a stretch longer than the lease with nothing sent, outside the
// faults that may hold the client up and before any fault could end the
// hold, is a hold that ran out while its holder worked: "the watchdog gave
// up", a finding on its own, without waiting for another process to be
// granted inside it. A stretch counts the time outside the faults that
// held the client up (a drop's with its reconnection, and its reply
// timeout for a renewal lost in flight), so a watchdog that stopped at a
// failed renewal is seen however often the faults strike after. A stretch
// that began at an acquire of the hold and went a whole lease before any
// fault held the client up is a hold that was never renewed
// (ShapeWatchdogNeverRenewed): the mark of a lost or stale renewal entry,
// not of a watchdog that stopped at a failure, since faults that struck
// later cannot have failed a renewal due before them, whatever the
// watchdog's cadence.

// renewalGaps returns, for the watchdog holds of one lock, the stretches in
// which the holder's client sent nothing on the lock for longer than the
// lease, beyond every fault. It needs the wire trace (opts.Wire) and a
// lock with a watchdog; it returns nothing otherwise.
//
// A client that serves several processes (threads) sends their attempts
// on the lock too: a command that carries a token only another of its
// processes sent (tokenOwners), and none of the holder's, is that
// process's own request and renews nothing of the holder's (holderTraffic).
func renewalGaps(holds []*hold, acqs []*Op, fs *faultSet, opts Options) []Example {
	if opts.Wire == nil || opts.NoWatchdog || len(holds) == 0 {
		return nil
	}
	owners := opts.Wire.tokenOwners(holds[0].grant.Lock, callWindows(holds, acqs))
	var out []Example
	for _, h := range holds {
		if h.shared || !renewed(h) || h.end <= h.start() {
			continue
		}
		c, ok := opts.Wire.clientOf(h.grant.Process)
		if !ok {
			continue
		}
		sl, found := longestSilence(h, opts.Wire.holderTraffic(c, h.grant.Lock, h.grant.Process, owners), fs, opts)
		if !found {
			continue
		}
		ops := holdOps(h)
		shape, what := ShapeWatchdogGaveUp, "gave up"
		mech := opts.Wire.silenceMechanism(c, h.grant.Lock, sl.from, opts.watchdogLease()/3)
		if sl.unrenewed {
			shape, what, mech = ShapeWatchdogNeverRenewed, "never renewed the hold it acquired", ""
		}
		out = append(out, Example{
			Lock: h.grant.Lock, Shape: shape, Mechanism: mech, Ops: ops, Faults: fs.overlapping(ops),
			Summary: fmt.Sprintf("p%d's watchdog %s: its client sent nothing on %s from %s to %s (%s outside the faults that held it up, more than %s) while p%d held it",
				h.grant.Process, what, h.grant.Lock, fmtTime(sl.from), fmtTime(sl.to), fmtDur(sl.silent), sl.bound, h.grant.Process),
			Cause: "no fault that hit its process held the client up, and none could end the hold before: a renewal every third of a lease was due, " +
				"and a retry a third of a lease after a failed one " +
				"(wire trace: the commands of p" + fmt.Sprint(h.grant.Process) + "'s client that name the lock)",
		})
	}
	return out
}

// renewed reports whether every acquire of h asked for a watchdog hold.
func renewed(h *hold) bool {
	for _, a := range h.acquires() {
		if a.Lease > 0 {
			return false
		}
	}
	return true
}

// silence is a stretch of a hold's belief with nothing sent on the lock:
// how much of it no fault held the client up for, and the bound that went
// past (rendered). unrenewed: it began at an acquire of the hold (its
// grant, or the command a re-entry sent), and no fault held the client up
// for a whole lease from there: the hold ran out before anything could
// have failed a renewal, and none was sent, whatever faults came later.
type silence struct {
	from, to, silent int64
	bound            string
	unrenewed        bool
}

// longestSilence is the stretch of h's belief (from its grant to the call
// that ended it) between two commands in sent (call times, sorted) whose
// time outside the faults that may hold its process up (a drop's with the
// client's recovery) most exceeds the lease, ending at the first moment a
// fault could have ended the hold. Faults that strike often cut no
// stretch short: only their own spans are left out. found is false when
// none exceeds the lease.
func longestSilence(h *hold, sent []int64, fs *faultSet, opts Options) (best silence, found bool) {
	end := h.end
	if h.endOp != nil {
		end = min(end, h.endOp.Call)
	}
	covers := holdUps(h, end, fs, opts)
	ls, _ := fs.lapses(h, opts)
	for _, l := range ls {
		end = min(end, lapseEnd(l, sent, covers))
	}
	w := opts.watchdogLease()
	excess, spans := int64(0), spansOf(covers)
	consider := func(from, to, bound int64, name string) {
		silent := uncovered(from, to, spans)
		if x := silent - bound - driftSlack(w); x > excess {
			unrenewed := atAcquire(h, from) && clearFrom(from, to, spans) > w+driftSlack(w)
			excess, best, found = x, silence{from, to, silent, name, unrenewed}, true
		}
	}
	last := h.start()
	check := func(t int64) {
		consider(last, t, w, fmt.Sprintf("the %s lease", fmtDur(w)))
		last = t
	}
	i, _ := slices.BinarySearch(sent, h.start())
	for ; i < len(sent) && sent[i] < end; i++ {
		check(sent[i])
	}
	check(end)
	return best, found
}

// clearFrom is how long from `from` on, up to `to`, no span of covers
// (sorted by start) held the client up.
func clearFrom(from, to int64, covers []span) int64 {
	for _, c := range covers {
		if c.to > from && c.from < to {
			return max(c.from, from) - from
		}
	}
	return to - from
}

// atAcquire reports whether t, where a silence of h began, is h's grant
// or falls within one of h's acquires (the command it sent).
func atAcquire(h *hold, t int64) bool {
	for _, a := range h.acquires() {
		if a.Call <= t && t <= a.Return {
			return true
		}
	}
	return t == h.start()
}

// holdUps are the spans over [h's start, end] in which a fault held h's
// process up: the windows of the faults that delay it, a drop's with the
// client's recovery after it.
func holdUps(h *hold, end int64, fs *faultSet, opts Options) []cover {
	p := h.grant.Process
	var covers []cover
	for _, i := range fs.meetingRaw(h.start(), end) {
		f := fs.faults[i]
		if !f.delays(p) {
			continue
		}
		e := fs.ends[i]
		drop := fs.allow[i] == AllowDrop
		if drop {
			e += opts.reconnectAfter(p, f.Start, e)
		}
		covers = append(covers, cover{span{f.Start, e}, drop})
	}
	return covers
}

// cover is a span in which a fault held a process up; drop: a drop
// fault's, with the client's recovery.
type cover struct {
	span
	drop bool
}

// lapseEnd is where a silence stops counting for a hold that lapse l
// could have ended: at l.earliest, or, for a drop (which only failed the
// holder's requests), at the first command its client sent on the lock
// once the drop and its recovery were over. A correct watchdog keeps
// renewing until a renewal is answered that the hold is gone; one that
// fell silent at the failure itself gave up.
func lapseEnd(l lapse, sent []int64, covers []cover) int64 {
	if !l.drop {
		return l.earliest
	}
	at := l.earliest
	for _, c := range covers {
		if c.from <= at && at < c.to {
			at = c.to
		}
	}
	if i, _ := slices.BinarySearch(sent, at); i < len(sent) {
		return sent[i]
	}
	return math.MaxInt64
}

// spansOf are the spans of covers, sorted by start (for uncovered).
func spansOf(covers []cover) []span {
	out := make([]span, len(covers))
	for i, c := range covers {
		out[i] = c.span
	}
	slices.SortFunc(out, func(x, y span) int { return compare(x.from, y.from) })
	return out
}

func compare(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// holdOps are the ops of h to show: its grant and what ended it.
func holdOps(h *hold) []Op {
	ops := []Op{*h.grant}
	if h.endOp != nil {
		ops = append(ops, *h.endOp)
	}
	return ops
}

// lockTraffic returns the call times, sorted, of client c's commands that
// name lock: an argument that is the lock's name or ends with it after a
// separator (a key prefix "app:", a hash tag "{…}").
func (t *WireTrace) lockTraffic(c int, lock string) []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := trafficKey{c, lock}
	if out, ok := t.traffic[k]; ok {
		return out
	}
	out := []int64{}
	for _, e := range t.Events {
		if e.Kind == WireCmd && e.Client == c && namesLock(e.Args, lock) {
			out = append(out, e.Call)
		}
	}
	slices.Sort(out)
	if t.traffic == nil {
		t.traffic = map[trafficKey][]int64{}
	}
	t.traffic[k] = out
	return out
}

// holderTraffic is lockTraffic(c, lock) less the commands that carry a
// token only another process of client c sent in its requests on the
// lock (owners: tokenOwners), sent before that process's last call on the
// lock ended, and none that process p sent: what may have renewed p's
// hold. A command whose tokens say nothing of its sender counts, as do
// the commands of a client that served p alone, and those that carry the
// token of a process whose calls had ended (its orphan's, or those of a
// process that took over its driver thread and with it its token).
func (t *WireTrace) holderTraffic(c int, lock string, p int, owners map[string]tokenUse) []int64 {
	sibling := func(at int64) func(string) bool {
		return func(s string) bool {
			u, ok := owners[s]
			if !ok || len(u.procs) != 1 || u.procs[p] || !u.clients[c] {
				return false
			}
			for q := range u.procs {
				return at <= u.lastCall[q]
			}
			return false
		}
	}
	mine := func(s string) bool { return owners[s].procs[p] }
	var out []int64
	left := false
	for _, e := range t.lockCommands(c, lock) {
		if ts := commandTokens(e, lock); slices.ContainsFunc(ts, sibling(e.Call)) && !slices.ContainsFunc(ts, mine) {
			left = true
			continue
		}
		out = append(out, e.Call)
	}
	if !left {
		return t.lockTraffic(c, lock)
	}
	return out
}

type trafficKey struct {
	client int
	lock   string
}

// namesLock reports whether args (words, space-separated) name lock: a
// word that is the lock's name, ends in it after a separator (a key
// "prefix:lock", a channel "…:{prefix:lock}"), or has it as a whole
// ':'-separated part inside (a multilock's member keys "prefix:lock:m1").
func namesLock(args, lock string) bool {
	for _, w := range strings.Fields(args) {
		w = strings.Trim(w, `"'{}`)
		if w == lock || strings.HasSuffix(w, lock) && strings.ContainsAny(w[len(w)-len(lock)-1:len(w)-len(lock)], ":{}/._-") {
			return true
		}
		if slices.ContainsFunc(strings.Split(w, ":"), func(part string) bool { return strings.Trim(part, "{}") == lock }) {
			return true
		}
	}
	return false
}

// quoteWire appends to ex's cause what the wire trace recorded of its
// processes' commands on its lock while its ops were in flight (at most
// maxQuoted, the latest first), as evidence: "p0 sent EVAL … at 3.21s,
// answered 1 at 3.22s".
func quoteWire(ex *Example, w *WireTrace) {
	if w == nil || len(ex.Ops) == 0 {
		return
	}
	lo, hi := ex.Ops[0].Call, ex.Ops[0].Return
	procs := map[int]bool{}
	for _, o := range ex.Ops {
		lo, hi = min(lo, o.Call), max(hi, o.Return)
		procs[o.Process] = true
	}
	var quoted []string
	for i := len(w.Events) - 1; i >= 0 && len(quoted) < maxQuoted; i-- {
		e := w.Events[i]
		if e.Kind == WireCmd && procs[e.Process] && e.Call >= lo && e.Call <= hi && namesLock(e.Args, ex.Lock) {
			quoted = append(quoted, e.Quote())
		}
	}
	if len(quoted) > 0 {
		slices.Reverse(quoted)
		ex.Cause = strings.TrimSpace(ex.Cause + " — wire: " + strings.Join(quoted, "; "))
	}
}

// maxQuoted bounds the commands an explanation quotes.
const maxQuoted = 4
