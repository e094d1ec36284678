package model

import (
	"maps"
	"slices"
	"strings"
	"unicode"
)

// A lock's commands name the hold they act on: Redisson sends its owner
// ("uuid:thread") with every acquire, renewal and release, a SET NX lock
// its random value. A retired process's client may serve live processes
// whose own calls on the lock cover the retired one's orphan renewals in
// time; the renewals still carry the retired process's token, and no live
// process's. So a command acted on past a retired call's lease bound that
// carries a token only that retired process sent, in its own requests on
// the lock, is that retired call's orphan, whatever its client's live
// processes were doing.

// minTokenLen is the shortest argument taken for an owner token: shorter
// ones (a lease, a count, a mode) are shared by every holder.
const minTokenLen = 8

// tokenOrphans are the times of client c's commands on lock acted on
// (acted) that carry a token only one of rs's processes sent, outside that
// process's own calls and holds (of holds and calls: a refused acquire's
// process lives on) and past the lease bound of each of its calls of rs
// before them (a command may be the renewal of any of those): by the
// index in rs of the process's latest such call, the one whose hold the
// command renews. owners are the lock's tokens (tokenOwners).
func tokenOrphans(w *WireTrace, c int, lock string, rs []retired, owners map[string]tokenUse, holds []*hold, calls []*Op, horizon int64) map[int][]int64 {
	byProcess := map[int][]int{} // indices in rs, the earliest first
	for i, r := range rs {
		byProcess[r.op.Process] = append(byProcess[r.op.Process], i)
	}
	out := map[int][]int64{}
	for q, idx := range byProcess {
		mine := func(s string) bool { o, ok := owners[s]; return ok && o.only(q, c) }
		free := gaps(busyOf(holds, calls, horizon, func(p int) bool { return p == q }))
		for _, e := range w.conns[c] {
			if e.Kind != WireCmd || !acted(e.Reply) || !namesLock(e.Args, lock) || !inSpans(e.Call, free) ||
				!slices.ContainsFunc(commandTokens(e, lock), mine) {
				continue
			}
			if i, ok := latestBounded(rs, idx, e.Call); ok {
				out[i] = append(out[i], e.Call)
			}
		}
	}
	return out
}

// latestBounded returns the index (of idx, indices in rs, the earliest
// first) of the latest call that ended before t, when t is past the lease
// bound of every one of them that did; false when none ended before t or t
// is inside one's bound.
func latestBounded(rs []retired, idx []int, t int64) (int, bool) {
	latest := -1
	for _, i := range idx {
		r := rs[i]
		if r.last >= t {
			break
		}
		if t <= r.last+r.lease+leaseBoundSlack(r.lease) {
			return 0, false
		}
		latest = i
	}
	return latest, latest >= 0
}

// tokenUse is who sent a token in their requests on a lock: the
// processes, and their clients; and when each process's last call on the
// lock ended.
type tokenUse struct {
	procs, clients map[int]bool
	lastCall       map[int]int64
}

// only reports whether the token was sent in process p's requests only,
// p's client being c.
func (u tokenUse) only(p, c int) bool {
	return len(u.procs) == 1 && u.procs[p] && u.clients[c]
}

// tokenOwners maps each token (tokens) of the processes' requests on lock
// to who sent it. A process's requests are its commands in its calls
// (calls) on the lock (requestTokens). A renewal taken for one makes its
// owner's token look shared (so an orphan goes unseen, never the
// reverse); its script is no token (commandTokens).
func (t *WireTrace) tokenOwners(lock string, calls map[int][]span) map[string]tokenUse {
	out := map[string]tokenUse{}
	onLock := map[int][]WireEvent{}
	for q, spans := range calls {
		c, ok := t.clientOf(q)
		if !ok {
			continue
		}
		if _, done := onLock[c]; !done {
			onLock[c] = t.lockCommands(c, lock)
		}
		last := int64(0)
		for _, sp := range spans {
			last = max(last, sp.to)
		}
		for _, s := range requestTokens(onLock[c], spans, lock) {
			u, ok := out[s]
			if !ok {
				u = tokenUse{procs: map[int]bool{}, clients: map[int]bool{}, lastCall: map[int]int64{}}
				out[s] = u
			}
			u.procs[q], u.clients[c], u.lastCall[q] = true, true, last
		}
	}
	return out
}

// requestTokens are the tokens of one process's requests, given its calls
// (spans) and its client's commands on the lock (cmds, by time): the
// tokens found in every one of its calls that sent anything, when two or
// more did and some token is (an owner's own token, which it sends in each
// call, where the threads of its client send theirs beside it and may come
// first); else the tokens of the first command in each call (a lock that
// draws a new token per hold).
func requestTokens(cmds []WireEvent, spans []span, lock string) []string {
	var first []string
	var every map[string]bool
	calls := 0
	for _, sp := range spans {
		i, _ := slices.BinarySearchFunc(cmds, sp.from, func(e WireEvent, t int64) int { return compare(e.Call, t) })
		if i == len(cmds) || cmds[i].Call > sp.to {
			continue
		}
		calls++
		first = append(first, commandTokens(cmds[i], lock)...)
		sent := map[string]bool{}
		for ; i < len(cmds) && cmds[i].Call <= sp.to; i++ {
			for _, s := range commandTokens(cmds[i], lock) {
				sent[s] = every == nil || every[s]
			}
		}
		every = sent
		maps.DeleteFunc(every, func(_ string, kept bool) bool { return !kept })
	}
	if calls >= 2 && len(every) > 0 {
		return slices.Sorted(maps.Keys(every))
	}
	return first
}

// lockCommands are client c's commands naming lock, by the time they
// were sent.
func (t *WireTrace) lockCommands(c int, lock string) []WireEvent {
	var out []WireEvent
	for _, e := range t.conns[c] {
		if e.Kind == WireCmd && namesLock(e.Args, lock) {
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b WireEvent) int { return compare(a.Call, b.Call) })
	return out
}

// scripting are the commands whose first argument is the script that
// runs (its text, its SHA, a function's name): the same for every owner.
var scripting = []string{"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"}

// commandTokens are the tokens of e's arguments, its script left out.
func commandTokens(e WireEvent, lock string) []string {
	args := e.Args
	if slices.Contains(scripting, strings.ToUpper(e.Cmd)) {
		if _, rest, ok := strings.Cut(strings.TrimSpace(args), " "); ok {
			args = rest
		}
	}
	return tokens(args, lock)
}

// tokens are the arguments of a command that may name an owner: at least
// minTokenLen long, with a letter and a digit, none of a script's
// punctuation, not cut short by the trace, and not the lock's key.
func tokens(args, lock string) []string {
	var out []string
	for _, f := range strings.Fields(args) {
		if len(f) < minTokenLen || strings.ContainsAny(f, "()[]'\"<>,;…") || namesLock(f, lock) ||
			!strings.ContainsFunc(f, unicode.IsLetter) || !strings.ContainsFunc(f, unicode.IsDigit) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// callWindows are each process's calls on a lock, from its holds (the
// grant and the ops answered in them) and its failed or unknown acquires,
// each from call to return: an unknown call's window ends where it was
// cut off, not at the horizon (callSpans), so that an orphan's later
// renewals fall in no live process's window.
func callWindows(holds []*hold, acqs []*Op) map[int][]span {
	out := map[int][]span{}
	eachCall(holds, acqs, func(o *Op) { out[o.Process] = append(out[o.Process], span{o.Call, o.Return}) })
	return out
}

// eachCall calls f with every op made on a lock: each hold's grant, the
// ops answered in it and the op that ended it, then acqs (the failed or
// unknown acquires).
func eachCall(holds []*hold, acqs []*Op, f func(*Op)) {
	for _, h := range holds {
		f(h.grant)
		for _, o := range h.answered {
			f(o)
		}
		if h.endOp != nil && h.endOp != h.grant {
			f(h.endOp)
		}
	}
	for _, o := range acqs {
		f(o)
	}
}
