package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A process retired by an unknown outcome (an info acquire, the call cut
// off by an interrupt, a cancel or a timeout) or by an Abandon leaves its
// client behind when the client serves other processes; an acquire
// answered not granted leaves its process going on. Whatever such a call
// took, a correct client keeps no renewal for it: past one
// lease (plus leaseBoundSlack) of the process's last request any hold it
// left has run out, and nothing of that client's has business with the
// lock's key but its live processes' own calls and holds. The wire trace
// shows the client's commands naming the lock and what Redis answered;
// such commands answered as acted on (a renewal that extended a hold)
// after that bound, while none of the client's processes holds the lock
// or has a call on it, repeated at least a renewal period apart, are the
// watchdog of a hold nobody owns: evidence that the lock kept an orphan, whether
// or not another process was refused meanwhile (leaseBound sees only
// the refusals). So are such commands that carry a retired process's own
// token, whatever the live processes do (orphantoken.go); a refused
// acquire's process lives on, so its token counts outside its own later
// calls and holds only.

// orphanMinSpread is the least spread, as a fraction of the lease, of the
// orphan commands that make a finding: a renewer sends one every third of
// a lease, and a correct client's single stale command (a renewal due as
// a pause ended, answered "no such hold") is not a cadence.
const orphanMinSpread = 3

// orphanTraffic finds, on lock, the clients that went on
// sending commands on the lock past the lease bound of every retired call
// and hold they had served, outside their live processes' calls and holds.
// holds are the lock's holds, acqs its failed or unknown acquires
// (lockAcquires), rels its releases (lockReleases: a late one, after its
// hold ran out, is in no hold but is a call all the same). It needs
// the wire trace; fair and quorum locks are not judged.
// owners gives the lock's tokens (tokenOwners), read once for both rules.
func orphanTraffic(lock string, holds []*hold, acqs, rels []*Op, owners func() map[string]tokenUse, opts Options, horizon int64) []Example {
	if opts.Wire == nil || opts.Fair || opts.SplitVotes {
		return nil // a fair lock's dead waiters and a quorum's leftover votes are their own matter, as for leaseBound
	}
	byClient := map[int][]retired{}
	for _, r := range retiredOn(holds, acqs, opts) {
		if c, ok := opts.Wire.clientOf(r.op.Process); ok {
			byClient[c] = append(byClient[c], r)
		}
	}
	if len(byClient) == 0 {
		return nil
	}
	var out []Example
	calls := append(slices.Clone(acqs), rels...)
	for _, c := range slices.Sorted(maps.Keys(byClient)) {
		rs := byClient[c]
		sent := orphanCommands(opts.Wire.actedTraffic(c, lock), rs, gaps(clientBusy(holds, calls, opts.Wire, c, horizon)))
		byToken := tokenOrphans(opts.Wire, c, lock, rs, owners(), holds, calls, horizon)
		for _, ts := range byToken {
			sent = append(sent, ts...)
		}
		sent = slices.Compact(slices.Sorted(slices.Values(sent)))
		if len(sent) < 2 || sent[len(sent)-1]-sent[0] < maxLease(rs)/orphanMinSpread {
			continue
		}
		out = append(out, orphanExample(lock, orphanSources(rs, sent, byToken), sent))
	}
	return out
}

// orphanSources are the calls and holds of rs (the earliest retired
// first) that the orphan commands sent may be the renewals of: those
// whose own token the commands carry (byToken, by index in rs), or, when
// they carry none, every one that retired before the first of them.
func orphanSources(rs []retired, sent []int64, byToken map[int][]int64) []retired {
	var out []retired
	for i, r := range rs {
		if len(byToken[i]) > 0 {
			out = append(out, r)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, r := range rs {
		if r.last < sent[0] {
			out = append(out, r)
		}
	}
	return out
}

// orphanMechanism says what left an orphan renewed after the calls and
// holds rs: MechanismAfterRefusal when each of them is an acquire
// answered not granted, MechanismAfterRetirement when none is, "" when
// both kinds may have.
func orphanMechanism(rs []retired) string {
	var ms []string
	for _, r := range rs {
		ms = append(ms, r.mechanism())
	}
	return agreed(ms)
}

// orphansMechanism is what left the orphans the wire trace shows on a
// lock (orphanTraffic's findings there), when they all say the same: the
// mechanism of a refusal the lease bound finds on that lock, whose
// occupant the history does not show. "" when there are none, or they
// differ.
func orphansMechanism(orphans []Example) string {
	var ms []string
	for _, ex := range orphans {
		ms = append(ms, ex.Mechanism)
	}
	return agreed(ms)
}

// agreed is the mechanism every one of ms says, "" when they differ or
// there are none.
func agreed(ms []string) string {
	if len(ms) == 0 || slices.ContainsFunc(ms[1:], func(m string) bool { return m != ms[0] }) {
		return ""
	}
	return ms[0]
}

// orphanExample is the finding of a client's orphan commands sent, after
// the calls and holds rs that may have left them (the earliest first).
func orphanExample(lock string, rs []retired, sent []int64) Example {
	var ops []Op
	var names []string
	for _, r := range rs {
		ops = append(ops, *r.op)
		names = append(names, fmt.Sprintf("p%d at %s", r.op.Process, fmtTime(r.last)))
	}
	return Example{
		Lock: lock, Shape: ShapeOrphanRenewed, Mechanism: orphanMechanism(rs), Ops: ops,
		Summary: fmt.Sprintf("the client of retired calls or refused acquires (%s) had %d commands on %s acted on from %s to %s, past the lease bound of each: outside its live processes' holds and calls on the lock, or carrying such a process's own token",
			strings.Join(names, ", "), len(sent), lock, fmtTime(sent[0]), fmtTime(sent[len(sent)-1])),
		Cause: "a retired call or hold, and an acquire answered not granted, must leave no renewal behind: past one lease of its last request it has run out, " +
			"and its client renewed it all the same (wire trace: the client's commands naming the lock, answered as acted on)",
	}
}

// maxLease is the longest lease of rs.
func maxLease(rs []retired) int64 {
	var l int64
	for _, r := range rs {
		l = max(l, r.lease)
	}
	return l
}

// retired is a call or hold that retired its process (the op that did:
// an info acquire, an Abandon, the info op that ended a hold), or an
// acquire answered not granted (refused; its process goes on), with its
// last request and the longest lease it asked for.
type retired struct {
	op      *Op
	last    int64
	lease   int64
	refused bool
}

// mechanism is what an orphan r alone left says of it.
func (r retired) mechanism() string {
	if r.refused {
		return MechanismAfterRefusal
	}
	return MechanismAfterRetirement
}

// retiredOn lists the lock's retired holds, info acquires and refused
// acquires, the earliest retired first.
func retiredOn(holds []*hold, acqs []*Op, opts Options) []retired {
	var out []retired
	for _, h := range holds {
		if h.endOp == nil || !h.endOp.retires() {
			continue
		}
		var lease int64
		for _, a := range h.acquires() {
			lease = max(lease, opLease(a, opts))
		}
		out = append(out, retired{op: h.endOp, last: h.endOp.effectiveDeadline(), lease: lease})
	}
	for _, o := range acqs {
		if o.Outcome == Info || o.Outcome == Fail {
			out = append(out, retired{op: o, last: o.effectiveDeadline(), lease: opLease(o, opts), refused: o.Outcome == Fail})
		}
	}
	slices.SortStableFunc(out, func(a, b retired) int { return compare(a.last, b.last) })
	return out
}

// clientBusy are the spans in which a process on client c had business
// with the lock: its calls on it (calls, and those of its holds; an info
// call up to its deadline) and its holds.
func clientBusy(holds []*hold, calls []*Op, w *WireTrace, c int, horizon int64) []span {
	return busyOf(holds, calls, horizon, func(p int) bool { got, ok := w.clientOf(p); return ok && got == c })
}

// lockReleases groups h's releases by lock, in history order.
func lockReleases(h *History) map[string][]*Op {
	out := map[string][]*Op{}
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Kind == Release {
			out[o.Lock] = append(out[o.Lock], o)
		}
	}
	return out
}

// busyOf are the spans in which a process that on accepts had business
// with the lock (clientBusy), and one empty span at the horizon.
func busyOf(holds []*hold, calls []*Op, horizon int64, on func(p int) bool) []span {
	out := []span{{horizon, horizon}} // gaps needs one span
	for _, h := range holds {
		if !on(h.grant.Process) {
			continue
		}
		end := h.until()
		if h.endOp == nil {
			end = math.MaxInt64 // held when the record ends: its renewals may go on past the last op
		}
		out = append(out, span{h.grant.Call, end}) // its grant's call, then the hold
		for _, o := range h.answered {
			out = append(out, span{o.Call, o.Return})
		}
	}
	for _, o := range calls {
		if on(o.Process) {
			out = append(out, span{o.Call, min(o.effectiveDeadline(), horizon)})
		}
	}
	return out
}

// orphanCommands are the times in sent (sorted) that lie in one of free
// (the sorted gaps between the client's busy spans) and past the lease
// bound (one lease plus leaseBoundSlack after its last request) of every
// retired call or hold of rs that retired before them: a command may be
// the renewal of any of those, so only one past all their bounds is an
// orphan's. A command before any of rs retired is none's.
func orphanCommands(sent []int64, rs []retired, free []span) []int64 {
	var out []int64
	for _, t := range sent {
		bound, after := int64(0), false
		for _, r := range rs {
			if r.last < t {
				bound, after = max(bound, r.last+r.lease+leaseBoundSlack(r.lease)), true
			}
		}
		if !after || t <= bound {
			continue
		}
		if i := sort.Search(len(free), func(i int) bool { return free[i].to > t }); i < len(free) && free[i].from < t {
			out = append(out, t)
		}
	}
	return out
}

// actedTraffic is when client c sent the requests on the lock's keys
// that Redis acted on (acted): the renewals that kept a hold, not the
// keyless ones (subscriptions to the lock's channel among them) nor those
// answered nil, 0 or an error, which changed nothing.
func (t *WireTrace) actedTraffic(c int, lock string) []int64 {
	var out []int64
	for _, e := range t.conns[c] {
		if e.Kind == WireCmd && !slices.Contains(keyless, e.Cmd) && acted(e.Reply) && namesLock(e.Args, lock) {
			out = append(out, e.Call)
		}
	}
	slices.Sort(out)
	return out
}

// acted reports whether a reply, as the proxy records it ("1", "OK",
// "[2: 1 1]", "nil", "ERR …"), says Redis did something: OK, a positive
// integer, or an array led by one. A lock script's renewal answers so when
// it extended a hold, and nil or 0 when there was none to extend.
func acted(reply string) bool {
	if reply == "OK" {
		return true
	}
	if rest, ok := strings.CutPrefix(reply, "["); ok { // "[n: first …]"
		_, elems, found := strings.Cut(rest, ": ")
		if !found {
			return false
		}
		reply, _, _ = strings.Cut(strings.TrimSuffix(elems, "]"), " ")
	}
	n, err := strconv.ParseInt(reply, 10, 64)
	return err == nil && n > 0
}
