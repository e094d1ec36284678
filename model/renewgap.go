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
// granted inside it. Once the client is back from a drop (reconnected, and
// past its reply timeout for a renewal lost in flight), a retry a renewal
// period later is due: a stretch of two periods with nothing sent then is
// a watchdog that stopped at a failed renewal.

// renewalGaps returns, for the watchdog holds of one lock, the stretches in
// which the holder's client sent nothing on the lock for longer than the
// lease (two renewal periods after a drop), beyond every fault. It needs the wire trace (opts.Wire) and a
// lock with a watchdog; it returns nothing otherwise.
func renewalGaps(holds []*hold, fs *faultSet, opts Options) []Example {
	if opts.Wire == nil || opts.NoWatchdog {
		return nil
	}
	var out []Example
	for _, h := range holds {
		if h.shared || !renewed(h) || h.end <= h.start() {
			continue
		}
		c, ok := opts.Wire.clientOf(h.grant.Process)
		if !ok {
			continue
		}
		sl, found := longestSilence(h, opts.Wire.lockTraffic(c, h.grant.Lock), fs, opts)
		if !found {
			continue
		}
		ops := holdOps(h)
		out = append(out, Example{
			Lock: h.grant.Lock, Ops: ops, Faults: fs.overlapping(ops),
			Summary: fmt.Sprintf("p%d's watchdog gave up: its client sent nothing on %s from %s to %s (%s, more than %s) while p%d held it",
				h.grant.Process, h.grant.Lock, fmtTime(sl.from), fmtTime(sl.to), fmtDur(sl.to-sl.from), sl.bound, h.grant.Process),
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

// silence is a stretch of a hold's belief with nothing sent on the lock,
// and the bound it went past (rendered).
type silence struct {
	from, to int64
	bound    string
}

// longestSilence is the stretch of h's belief (from its grant to the call
// that ended it) with no command in sent (call times, sorted) that most
// exceeds its bound, not counting the windows of the faults that may hold
// its process up (with a drop fault's recovery) and ending at the first
// moment a fault could have ended the hold. The bound is the lease, or, for
// a stretch that starts as the client is back from a drop (it has learned
// that a renewal failed, or could not have sent one), two renewal periods:
// a retry a period later was due. found is false when none exceeds its
// bound.
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
	excess := int64(0)
	last := h.start()
	check := func(t int64) {
		for _, g := range silentParts(last, t, covers) {
			bound, name := w, fmt.Sprintf("the %s lease", fmtDur(w))
			if afterDrop(g.from, covers) {
				bound, name = w*2/3, fmt.Sprintf("the %s of two renewal periods after its client was back from a drop", fmtDur(w*2/3))
			}
			if x := g.to - g.from - bound - driftSlack(w); x > excess {
				excess, best, found = x, silence{g.from, g.to, name}, true
			}
		}
		last = t
	}
	i, _ := slices.BinarySearch(sent, h.start())
	for ; i < len(sent) && sent[i] < end; i++ {
		check(sent[i])
	}
	check(end)
	return best, found
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

// afterDrop reports whether t is the end of a drop's span among covers.
func afterDrop(t int64, covers []cover) bool {
	return slices.ContainsFunc(covers, func(c cover) bool { return c.drop && c.to == t })
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

// silentParts are the parts of [a, b] that no cover meets, in order.
func silentParts(a, b int64, covers []cover) []span {
	if b <= a {
		return nil
	}
	cs := slices.Clone(covers)
	slices.SortFunc(cs, func(x, y cover) int { return compare(x.from, y.from) })
	var out []span
	cur := a
	for _, c := range cs {
		if c.to < cur || c.from > b {
			continue
		}
		if c.from > cur {
			out = append(out, span{cur, c.from})
		}
		cur = max(cur, c.to)
	}
	if b > cur {
		out = append(out, span{cur, b})
	}
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

type trafficKey struct {
	client int
	lock   string
}

// namesLock reports whether args (words, space-separated) name lock.
func namesLock(args, lock string) bool {
	for _, w := range strings.Fields(args) {
		w = strings.Trim(w, `"'{}`)
		if w == lock || strings.HasSuffix(w, lock) && strings.ContainsAny(w[len(w)-len(lock)-1:len(w)-len(lock)], ":{}/._-") {
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
