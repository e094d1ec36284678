package model

import "slices"

// A process's first acquire may be called while its client is still
// starting: a driver process (a JVM) not yet connected, or connected but
// still authenticating and warming up. The wire trace shows it: the
// process's client had sent nothing naming the lock since the process
// began, its first command naming the lock came after the call, and either
// no connection it opened since the process began was open at the call, or
// it sent other commands (AUTH, CLIENT SETNAME, a warm-up) in between. That
// stretch is the client's start-up, not the lock's waiting: the liveness
// and TryLock-timing checks count the wait of a process's first op from
// that first command on. A client that tries at once and then misses its
// wake-up sent its first command at the call, and one that sits silent on
// an open connection shows no start-up: their waits count whole.

// startedUp returns h with each such acquire's call moved to its client's
// first command on the lock (h itself when there is no wire trace or no
// such acquire). Only the liveness and timing checks read it.
func startedUp(h *History, w *WireTrace) *History {
	if w == nil {
		return h
	}
	var ops []Op
	seen := map[int]bool{} // processes whose first op was met
	for i := range h.Ops {
		o := &h.Ops[i]
		first := !seen[o.Process]
		seen[o.Process] = true
		if o.Kind != Acquire || !first {
			continue
		}
		at, ok := w.startedAt(o)
		if !ok || at <= o.Call {
			continue
		}
		if ops == nil {
			ops = append([]Op(nil), h.Ops...)
		}
		ops[i].Call = min(at, o.Return)
	}
	if ops == nil {
		return h
	}
	out := *h
	out.Ops = ops
	return &out
}

// startedAt returns when acquire o's client first sent a command naming
// o's lock at or after o's call, if it had sent none since o's process
// began and was starting then; ok is false otherwise.
func (t *WireTrace) startedAt(o *Op) (int64, bool) {
	c, known := t.clientOf(o.Process)
	if !known {
		return 0, false
	}
	began := t.binds[o.Process][0].Call
	sent := t.lockTraffic(c, o.Lock)
	since, _ := slices.BinarySearch(sent, began)
	i, _ := slices.BinarySearch(sent, o.Call)
	if i == len(sent) || i != since {
		return 0, false
	}
	if t.openAt(c, o.Call, began) && !t.busy(c, o.Call, sent[i]) {
		return 0, false
	}
	return sent[i], true
}

// busy reports whether client c sent a command in [from, to) other than
// a PING (a health check), as a client starting up does.
func (t *WireTrace) busy(c int, from, to int64) bool {
	return slices.ContainsFunc(t.conns[c], func(e WireEvent) bool {
		return e.Kind == WireCmd && e.Call >= from && e.Call < to && e.Cmd != "PING"
	})
}

// openAt reports whether client c had a connection open at time at that
// it opened at since or later.
func (t *WireTrace) openAt(c int, at, since int64) bool {
	opened := map[int64]bool{}
	for _, e := range t.conns[c] {
		if e.Kind == WireCmd || e.Call < since {
			continue
		}
		if e.Call > at {
			break
		}
		if e.Kind == WireOpen {
			opened[e.Conn] = true
		} else if e.Kind == WireClose {
			delete(opened, e.Conn)
		}
	}
	return len(opened) > 0
}
