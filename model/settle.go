package model

import (
	"fmt"
	"slices"
)

// An acquire answered with an unknown outcome (Info: a timeout, an EOF)
// may have taken the lock at any time up to its deadline, so the
// linearizability check must try it both ways. A failover that fails
// every acquire in flight leaves dozens of them, overlapping, and porcupine
// then cannot decide in time. Most never reached Redis: a pooled
// connection the server had closed answers EOF to a request nobody read.
// The wire trace settles those. Every request of a traced client passes the
// proxy, which records each one it reads; a client that sent no request
// that could act on a key while its acquire was in flight took nothing.

// keyless are the commands that act on no key, so cannot take a lock:
// connection set-up and health checks, and the subscriptions by which a
// waiter hears of a release.
var keyless = []string{
	"PING", "HELLO", "AUTH", "CLIENT", "SELECT", "READONLY", "READWRITE", "ECHO", "QUIT", "RESET",
	"INFO", "COMMAND", "ROLE", "CLUSTER", "SENTINEL",
	"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE", "UNSUBSCRIBE", "PUNSUBSCRIBE", "SUNSUBSCRIBE",
}

// sentNothing reports whether, by the trace, a's process's client sent no
// request but keyless ones from a's call to the latest time a's request
// could take effect, or until the client serves another process, if that
// comes first: a retired process's client is handed to its replacement,
// and a request a sent before it returned is read before the client is
// bound again. A request of another owner sharing the client counts too,
// whatever key it names: the rule needs no key to be recognised. It is
// false when the trace says nothing of the client.
func (t *WireTrace) sentNothing(a *Op) bool {
	c, known := t.clientOf(a.Process)
	if !known {
		return false
	}
	end := a.effectiveDeadline()
	for p, bs := range t.binds {
		for _, b := range bs {
			if p != a.Process && b.Client == c && b.Call >= a.Return && b.Call < end {
				end = b.Call
			}
		}
	}
	for _, e := range t.conns[c] {
		if e.Kind == WireCmd && e.Call >= a.Call && e.Call <= end && !slices.Contains(keyless, e.Cmd) {
			return false
		}
	}
	return true
}

// settleUnsent returns h with every Info acquire whose client sent nothing
// (sentNothing) made an Abandon that ends when the acquire returned: its
// process is retired there, as before, and the acquire took nothing. n counts them; h itself is not changed,
// and without a trace (w nil) it is returned as it is.
func settleUnsent(h *History, w *WireTrace) (out *History, n int) {
	if w == nil {
		return h, 0
	}
	var settled []int
	for i := range h.Ops {
		if o := &h.Ops[i]; o.Kind == Acquire && o.Outcome == Info && w.sentNothing(o) {
			settled = append(settled, i)
		}
	}
	if len(settled) == 0 {
		return h, 0
	}
	c := *h
	c.Ops = slices.Clone(h.Ops)
	for _, i := range settled {
		c.Ops[i].Kind = Abandon
		c.Ops[i].Deadline = 0 // nothing in flight: it ends when it returned
	}
	return &c, len(settled)
}

// settledNote says, for an explanation, how many acquires settleUnsent
// settled ("" for none).
func settledNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d acquire(s) answered with an unknown outcome sent Redis nothing (wire trace) and are taken as taking nothing", n)
}
