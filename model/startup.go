package model

import "slices"

// A process's first acquire may be called while its client is still
// starting: a driver process (a JVM) not yet connected, its warm-up not
// done. The wire trace shows it: no connection the process's client opened
// since the process began was open when the acquire was called, and its
// first command naming the lock came later. That stretch is the client's
// start-up, not the lock's waiting: the liveness and TryLock-timing checks
// count the wait of a process's first op from that first command on.

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
// o's lock at or after o's call, if none of the connections the client
// opened since o's process began was open when o was called (it was
// starting); ok is false otherwise.
func (t *WireTrace) startedAt(o *Op) (int64, bool) {
	c, known := t.clientOf(o.Process)
	if !known || t.openAt(c, o.Call, t.binds[o.Process][0].Call) {
		return 0, false
	}
	sent := t.lockTraffic(c, o.Lock)
	i, _ := slices.BinarySearch(sent, o.Call)
	if i == len(sent) {
		return 0, false
	}
	return sent[i], true
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
