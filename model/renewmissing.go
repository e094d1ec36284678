package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A watchdog renews a hold while its holder holds it, and stops once Redis
// answers that the hold is gone: a renewal answered nil or 0 found no hold
// of its owner's to extend (the key was deleted, its lease ran out while
// the client was held up, another process took the lock after that), and
// the holder's release ends the renewal in any case. A client that goes
// on renewing after that answer sends, every renewal period, commands
// that change nothing, for a hold that is not there, whether or not its
// holder still believes it holds (Redisson 3.10.5 and 3.10.6 rescheduled
// the renewal whatever it answered, past the holder's unlock and into its
// next waits). The wire trace shows it: renewals carrying a token only one
// process sent (tokenOwners), answered as not acted on one after another,
// with none acted on and no grant to the process between them, spread
// over at least half a renewal period (a third of the lease) so that a
// retry of one renewal is not taken for a cadence. A correct watchdog
// sends one such renewal, the one that learns the hold is gone, and no
// more until its owner is granted the lock again.
//
// A renewal is a command of a renewal's form (commandForm) carrying its
// process's token, wherever it falls but in that process's releases (whose
// commands may look like a renewal's as the trace cuts them): a form is a
// renewal's when a command of it was sent outside the calls of the one
// process whose token it carries, and no acquire of the lock begins with
// it (the library renews with a command of its own, which an acquire's
// attempts, in its call or left running past it, do not send). What a
// form answers when the hold is there is read from the run, not assumed:
// the answer that the first renewal of most watchdog holds gave
// (Redisson's renewal answers 1, python-redis-lock's extend 0); a nil or 0
// that differs from it is "not held", one equal to it a renewal that
// found its hold.

// renewedMissing returns, for one lock, the processes with a watchdog
// hold whose client went on renewing after Redis answered that their hold
// was gone. It needs the wire trace; a lock without a watchdog has no
// renewals to judge.
func renewedMissing(lock string, holds []*hold, acqs []*Op, opts Options) []Example {
	if opts.Wire == nil || opts.NoWatchdog {
		return nil
	}
	calls := callWindows(holds, acqs)
	owners := opts.Wire.tokenOwners(lock, calls)
	acquiring, releasing := callsByKind(holds, acqs)
	forms := renewalForms(opts.Wire, lock, owners, calls, acquiring, holds)
	var out []Example
	for _, p := range watchdogHolders(holds) {
		c, ok := opts.Wire.clientOf(p)
		if !ok {
			continue
		}
		mine := func(s string) bool { o, ok := owners[s]; return ok && o.only(p, c) }
		held := func(e WireEvent) (string, bool) { // false: not a renewal of p's
			if inSpans(e.Call, releasing[p]) || !slices.ContainsFunc(commandTokens(e, lock), mine) {
				return "", false
			}
			reply, ok := forms[commandForm(e, lock)]
			return reply, ok
		}
		busy := append(beliefSpans(holds, p), echoes(releasing[p])...)
		idle := func(e WireEvent) bool { return !inSpans(e.Call, busy) }
		run := missingRun(opts.Wire.lockCommands(c, lock), grantTimes(holds, p), idle, held)
		if len(run) < 2 || run[len(run)-1].Call-run[0].Call < opts.watchdogLease()/(2*orphanMinSpread) {
			continue
		}
		out = append(out, missingExample(lock, p, holdBefore(holds, p, run[0].Call), run))
	}
	return out
}

// commandForm is what a command on lock runs, whoever sends it: its name
// and the arguments before the lock's key (a script's text as the trace
// cut it, or its SHA), less a trailing key count.
func commandForm(e WireEvent, lock string) string {
	var form []string
	for _, f := range strings.Fields(e.Args) {
		if namesLock(f, lock) {
			break
		}
		form = append(form, f)
	}
	if n := len(form); n > 0 {
		if _, err := strconv.Atoi(form[n-1]); err == nil {
			form = form[:n-1]
		}
	}
	return strings.ToUpper(e.Cmd) + " " + strings.Join(form, " ")
}

// renewalForms maps the forms of lock's renewals that acquires do not begin
// with to the answer each gives while its hold stands: the forms of the
// commands that carry a token only one process sent, outside that process's
// calls, less the acquires' forms (acquireForms); a form's answer is the
// one that the first of its commands in most watchdog holds of their
// process (holds) gave, more than half of them: a hold's first renewal, a
// third of a lease after its grant, finds it there but where a fault ended
// it at once; an error reply (a script not yet loaded, a refusal) says
// nothing of the hold and is passed over. A form without one is left out:
// what it says when the hold is gone cannot be told from what it says
// when it is there.
func renewalForms(w *WireTrace, lock string, owners map[string]tokenUse, calls, acquiring map[int][]span, holds []*hold) map[string]string {
	answers := map[string]map[string]int{}
	for tok, u := range owners {
		if len(u.procs) != 1 || len(u.clients) != 1 {
			continue
		}
		p, c := onlyKey(u.procs), onlyKey(u.clients)
		first := map[*hold]map[string]bool{} // the forms a hold's renewals have shown
		for _, e := range w.lockCommands(c, lock) {
			if e.Return == 0 || errorReply(e.Reply) || inSpans(e.Call, calls[p]) || !slices.Contains(commandTokens(e, lock), tok) {
				continue
			}
			form := commandForm(e, lock)
			if answers[form] == nil {
				answers[form] = map[string]int{}
			}
			i := slices.IndexFunc(holds, func(h *hold) bool {
				return h.grant.Process == p && renewed(h) && h.start() < e.Call && e.Call < h.end
			})
			if i < 0 || first[holds[i]][form] {
				continue
			}
			if first[holds[i]] == nil {
				first[holds[i]] = map[string]bool{}
			}
			first[holds[i]][form] = true
			answers[form][e.Reply]++
		}
	}
	for form := range acquireForms(w, lock, acquiring) {
		delete(answers, form)
	}
	out := map[string]string{}
	for form, n := range answers {
		if reply, ok := majority(n); ok {
			out[form] = reply
		}
	}
	return out
}

// acquireForms are the forms that begin the acquires on lock (acquiring:
// each process's acquire calls): those first in more than half of the
// acquire calls they are sent in. An acquire sends its own command first;
// a renewal lands in an acquire's call only when its watchdog's period
// comes round there, and first in it only when that falls between the
// call and its first command.
func acquireForms(w *WireTrace, lock string, acquiring map[int][]span) map[string]bool {
	begins, in := map[string]int{}, map[string]int{}
	for q, spans := range acquiring {
		c, ok := w.clientOf(q)
		if !ok {
			continue
		}
		cmds := w.lockCommands(c, lock)
		for _, sp := range spans {
			seen := map[string]bool{}
			for _, e := range cmds {
				if e.Call < sp.from || e.Call > sp.to {
					continue
				}
				form := commandForm(e, lock)
				if len(seen) == 0 {
					begins[form]++
				}
				if !seen[form] {
					seen[form] = true
					in[form]++
				}
			}
		}
	}
	out := map[string]bool{}
	for form, n := range begins {
		if 2*n > in[form] {
			out[form] = true
		}
	}
	return out
}

// majority is the key of n with more than half of its total.
func majority(n map[string]int) (string, bool) {
	total := 0
	for _, k := range n {
		total += k
	}
	for reply, k := range n {
		if 2*k > total {
			return reply, true
		}
	}
	return "", false
}

// onlyKey is the key of a map of one.
func onlyKey(m map[int]bool) int {
	for k := range m {
		return k
	}
	return -1
}

// callsByKind are each process's acquire calls on a lock (its grants,
// reentries and failed or unknown acquires) and its release calls, from
// call to return.
func callsByKind(holds []*hold, acqs []*Op) (acquiring, releasing map[int][]span) {
	acquiring, releasing = map[int][]span{}, map[int][]span{}
	eachCall(holds, acqs, func(o *Op) {
		switch o.Kind {
		case Acquire:
			acquiring[o.Process] = append(acquiring[o.Process], span{o.Call, o.Return})
		case Release:
			releasing[o.Process] = append(releasing[o.Process], span{o.Call, o.Return})
		}
	})
	return acquiring, releasing
}

// watchdogHolders are the processes with a watchdog hold (renewed) among
// holds, in order.
func watchdogHolders(holds []*hold) []int {
	var out []int
	for _, h := range holds {
		if !h.shared && renewed(h) && !slices.Contains(out, h.grant.Process) {
			out = append(out, h.grant.Process)
		}
	}
	slices.Sort(out)
	return out
}

// grantTimes are when process p's holds among holds were granted.
func grantTimes(holds []*hold, p int) []int64 {
	var out []int64
	for _, h := range holds {
		if h.grant.Process == p {
			out = append(out, h.start())
		}
	}
	slices.Sort(out)
	return out
}

// beliefSpans are process p's holds among holds, each from its grant's
// answer to the latest it may have stood.
func beliefSpans(holds []*hold, p int) []span {
	var out []span
	for _, h := range holds {
		if h.grant.Process == p {
			out = append(out, span{h.start(), h.until()})
		}
	}
	return out
}

// echoes are spans, each stretched past its end by its own length: a
// release and the time after its answer in which a renewal sent as it
// was answered may still reach the trace (a watchdog is stopped once the
// release is answered, and a renewal already under way goes out).
func echoes(spans []span) []span {
	out := make([]span, len(spans))
	for i, s := range spans {
		out[i] = span{s.from, s.to + (s.to - s.from)}
	}
	return out
}

// holdBefore is process p's last hold granted before t (nil: none).
func holdBefore(holds []*hold, p int, t int64) *hold {
	var last *hold
	for _, h := range holds {
		if h.grant.Process == p && h.start() < t && (last == nil || h.start() > last.start()) {
			last = h
		}
	}
	return last
}

// missingRun is the longest run, among cmds (a client's commands on a lock,
// in time order), of the process's renewals answered "not held": nil or 0
// where its form answers otherwise while its hold stands (held: that
// answer, false for a command that is no renewal of the process's); with
// none answered as its hold stands between them, and no grant to the
// process (grants) between two of them unless both were sent while it held
// nothing (idle: outside its holds, from their grant's answer, and its
// releases with as long again after each (echoes); waiting in an acquire is
// idle). A watchdog starts with the answer that grants its hold and stops
// with the hold's release, so renewals sent while its process holds nothing
// belong to one that outlived a release, whatever grants came between; a
// grant before one sent in a hold starts a new watchdog, whose first "not
// held" may be the one a correct watchdog sends as it learns.
func missingRun(cmds []WireEvent, grants []int64, idle func(WireEvent) bool, held func(WireEvent) (string, bool)) []WireEvent {
	var best, run []WireEvent
	for _, e := range cmds {
		stands, ok := held(e)
		if e.Return == 0 || !ok {
			continue
		}
		if len(run) > 0 && grantedBetween(grants, run[len(run)-1].Call, e.Call) && !(idle(run[len(run)-1]) && idle(e)) {
			run = nil
		}
		switch {
		case e.Reply == stands:
			run = nil
		case e.Reply == "nil" || e.Reply == "0":
			if run = append(run, e); len(run) > len(best) {
				best = run
			}
		}
	}
	return best
}

// grantedBetween reports whether one of grants (sorted) falls in (a, b).
func grantedBetween(grants []int64, a, b int64) bool {
	i, _ := slices.BinarySearch(grants, a+1)
	return i < len(grants) && grants[i] < b
}

// inSpans reports whether t falls within one of spans.
func inSpans(t int64, spans []span) bool {
	return slices.ContainsFunc(spans, func(s span) bool { return s.from <= t && t <= s.to })
}

func missingExample(lock string, p int, h *hold, run []WireEvent) Example {
	var ops []Op
	if h != nil {
		ops = holdOps(h)
	}
	return Example{
		Lock: lock, Class: ClassContract, Shape: ShapeRenewedMissing, Ops: ops,
		Summary: fmt.Sprintf("p%d's client renewed its hold on %s %d times from %s to %s after Redis answered that the hold was gone (%s %s: %s)",
			p, lock, len(run), fmtTime(run[0].Call), fmtTime(run[len(run)-1].Call), run[0].Cmd, run[0].Args, run[0].Reply),
		Cause: "a watchdog stops once a renewal finds no hold to extend; this one went on renewing a hold that was not there " +
			"(wire trace: the renewals of p" + fmt.Sprint(p) + "'s client that carry its token)",
	}
}
