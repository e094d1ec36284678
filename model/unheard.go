package model

import (
	"fmt"
	"strings"
)

// A client learns that it was granted a lock from Redis's answer to a
// command it sent on the lock's key. The wire trace shows every command a
// process's client sent during its acquire and when each was answered: an
// acquire answered granted while none of the commands it sent on the lock
// had an answer is a grant its client never heard of (a timed-out request
// taken for a grant, a request that never reached Redis), a finding beyond
// every fault, since no fault tells a client it holds a lock.

// unheardGrants returns, for one lock's holds, the acquires answered ok
// whose client sent at least one command naming the lock in the call
// (subscriptions aside) and had none of them answered by the time the
// call returned. It needs the wire trace (opts.Wire); an acquire whose
// client sent nothing on the lock (a re-entry counted in the client) is
// not judged.
func unheardGrants(holds []*hold, fs *faultSet, opts Options) []Example {
	if opts.Wire == nil {
		return nil
	}
	var out []Example
	for _, h := range holds {
		for _, a := range h.acquires() {
			sent, ok := opts.Wire.unanswered(a)
			if !ok {
				continue
			}
			ops := []Op{*a}
			out = append(out, Example{
				Lock: a.Lock, Shape: ShapeUnheardGrant, Ops: ops, Faults: fs.overlapping(ops),
				Summary: fmt.Sprintf("p%d's acquire of %s was answered granted at %s, but Redis had answered none of the %d commands its client sent on the lock since the call at %s",
					a.Process, a.Lock, fmtTime(a.Return), len(sent), fmtTime(a.Call)),
				Cause: "a client knows it holds a lock only from Redis's answer; no fault tells it so (wire trace: " + quoteAll(sent) + ")",
			})
		}
	}
	return out
}

// unanswered returns the commands naming a's lock (subscriptions aside)
// that a's process's client sent during a, when there is at least one and
// none was answered before a returned; ok is false otherwise, or when the
// trace says nothing of the client.
func (t *WireTrace) unanswered(a *Op) (sent []WireEvent, ok bool) {
	c, known := t.clientOf(a.Process)
	if !known {
		return nil, false
	}
	for _, e := range t.conns[c] {
		if e.Kind != WireCmd || isSubscribe(e.Cmd) || e.Call < a.Call || e.Call > a.Return || !namesLock(e.Args, a.Lock) {
			continue
		}
		if e.Return > 0 && e.Return <= a.Return {
			return nil, false // heard
		}
		e.Process = a.Process
		sent = append(sent, e)
	}
	return sent, len(sent) > 0
}

// quoteAll quotes up to maxQuoted of es, the first first.
func quoteAll(es []WireEvent) string {
	var qs []string
	for i, e := range es {
		if i == maxQuoted {
			qs = append(qs, fmt.Sprintf("and %d more", len(es)-i))
			break
		}
		qs = append(qs, e.Quote())
	}
	return strings.Join(qs, "; ")
}
