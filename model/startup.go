package model

import (
	"slices"
	"sort"
)

// A process's first acquire may be called while its client is still
// starting: a driver process (a JVM) not yet connected, its warm-up not
// done. The wire trace shows it: the client had no connection open when
// the acquire was called, and its first command naming the lock came
// later. That stretch is the client's start-up, not the lock's waiting:
// the liveness and TryLock-timing checks count an acquire's wait from
// that first command on.

// startedUp returns h with each such acquire's call moved to its client's
// first command on the lock (h itself when there is no wire trace or no
// such acquire). Only the liveness and timing checks read it.
func startedUp(h *History, w *WireTrace) *History {
	if w == nil {
		return h
	}
	var ops []Op
	for i := range h.Ops {
		o := &h.Ops[i]
		if o.Kind != Acquire {
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
// o's lock at or after o's call, if the client had no connection open when
// o was called (it was starting); ok is false otherwise.
func (t *WireTrace) startedAt(o *Op) (int64, bool) {
	c, known := t.clientOf(o.Process)
	if !known || t.openAt(c, o.Call) {
		return 0, false
	}
	sent := t.lockTraffic(c, o.Lock)
	i, _ := slices.BinarySearch(sent, o.Call)
	if i == len(sent) {
		return 0, false
	}
	return sent[i], true
}

// openAt reports whether client c had a connection open at time at.
func (t *WireTrace) openAt(c int, at int64) bool {
	steps := t.openSteps(c)
	i := sort.Search(len(steps), func(i int) bool { return steps[i].at > at })
	return i > 0 && steps[i-1].open > 0
}

// openStep is how many connections a client has open from at on.
type openStep struct {
	at   int64
	open int
}

// openSteps returns client c's open connections over time, cached.
func (t *WireTrace) openSteps(c int) []openStep {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.steps[c]; ok {
		return s
	}
	var out []openStep
	n := 0
	for _, e := range t.conns[c] {
		switch e.Kind {
		case WireOpen:
			n++
		case WireClose:
			n = max(n-1, 0)
		default:
			continue
		}
		out = append(out, openStep{e.Call, n})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].at < out[b].at })
	if t.steps == nil {
		t.steps = map[int][]openStep{}
	}
	t.steps[c] = out
	return out
}
