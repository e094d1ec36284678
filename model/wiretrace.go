package model

import (
	"fmt"
	"slices"
	"sync"
)

// WireFile is the name of a run directory's wire trace, beside the history.
const WireFile = "wire.jsonl"

// Kinds of wire events (WireEvent.Kind).
const (
	WireOpen  = "open"  // a connection of a client was accepted by the proxy
	WireClose = "close" // it closed (either side)
	WireCmd   = "cmd"   // one request and its reply
	WireBind  = "bind"  // process Process runs on client Client from Call on
)

// WireEvent is one thing the RESP proxy in front of a client saw, or (Kind
// WireBind) which process a client connection serves from when on. Times
// are nanoseconds since the history's time 0, as Op's.
type WireEvent struct {
	Kind    string `json:"kind"`
	Client  int    `json:"client"`
	Process int    `json:"p,omitempty"`
	Conn    int64  `json:"conn,omitempty"`
	// Node is the server the connection reached, in a topology of
	// several ("": the one Redis).
	Node string `json:"node,omitempty"`
	// Cmd is the request's command (upper case), Args its first arguments
	// and Reply its reply, both cut short.
	Cmd   string `json:"cmd,omitempty"`
	Args  string `json:"args,omitempty"`
	Reply string `json:"reply,omitempty"`
	// Call is when the request (or the connection, the binding) was seen,
	// Return when its reply was passed on (0: never answered).
	Call   int64 `json:"call"`
	Return int64 `json:"ret,omitempty"`
}

// WireTrace is what the proxies in front of a run's clients recorded: every
// connection's open and close and every command with its reply, per client
// connection, and which process each client served when. A check given one
// (Options.Wire) takes its reconnections from it instead of a constant.
type WireTrace struct {
	Events []WireEvent
	// conns holds each client's events but the bindings, in time order.
	conns map[int][]WireEvent
	binds map[int][]WireEvent

	mu      sync.Mutex // guards the caches below
	traffic map[trafficKey][]int64
}

// NewWireTrace indexes events (in any order).
func NewWireTrace(events []WireEvent) *WireTrace {
	t := &WireTrace{Events: events, conns: map[int][]WireEvent{}, binds: map[int][]WireEvent{}}
	for _, e := range events {
		if e.Kind == WireBind {
			t.binds[e.Process] = append(t.binds[e.Process], e)
			continue
		}
		t.conns[e.Client] = append(t.conns[e.Client], e)
	}
	for _, es := range t.conns {
		slices.SortStableFunc(es, func(a, b WireEvent) int { return compare(eventTime(a), eventTime(b)) })
	}
	return t
}

// eventTime orders a client's events: a command by its answer (a command
// is answered on a connection after its open), the others when they
// happened.
func eventTime(e WireEvent) int64 {
	if e.Kind == WireCmd && e.Return > 0 {
		return e.Return
	}
	return e.Call
}

// clientOf returns the client connection process p ran on (false: the
// trace does not say).
func (t *WireTrace) clientOf(p int) (int, bool) {
	bs := t.binds[p]
	if len(bs) == 0 {
		return 0, false
	}
	return bs[0].Client, true
}

// Reconnected returns when process p's client had its connections back
// after a fault over [start, end] that may have closed them: the first
// answer it got on a connection opened after one of its connections
// closed in the window, or end when that came sooner. A client none of
// whose connections closed in the window had nothing to reconnect (at =
// end), and so had one that opened no new connection (it tried nothing
// that needed one). ok is false when the trace says nothing of p's client.
func (t *WireTrace) Reconnected(p int, start, end int64) (at int64, ok bool) {
	c, ok := t.clientOf(p)
	if !ok {
		return 0, false
	}
	closed := int64(-1) // the first close in the window
	opened := map[int64]bool{}
	for _, e := range t.conns[c] {
		switch {
		case e.Kind == WireClose && closed < 0 && e.Call >= start && e.Call <= end:
			closed = e.Call
		case e.Kind == WireOpen && closed >= 0 && e.Call >= closed:
			opened[e.Conn] = true
		case e.Kind == WireCmd && opened[e.Conn] && e.Return > 0:
			return max(end, e.Return), true
		}
	}
	return end, true
}

// LostInFlight returns when a connection of process p's client closed in
// [start, end] with a request on it still unanswered (the latest such
// close): a request that may have run while its caller has not heard of
// it. The proxy reads what a client sent until the client saw Redis's side
// close, so a request written as the connection died is there too
// (faults.Wire). Connections that subscribed do not count (their replies
// are not paired with requests). ok is false when there was none, or the
// trace says nothing of p's client.
func (t *WireTrace) LostInFlight(p int, start, end int64) (closed int64, ok bool) {
	c, known := t.clientOf(p)
	if !known {
		return 0, false
	}
	pending, subscribed := map[int64]bool{}, map[int64]bool{}
	for _, e := range t.conns[c] {
		switch {
		case e.Kind == WireCmd && isSubscribe(e.Cmd):
			subscribed[e.Conn] = true
		case e.Kind == WireCmd && e.Return == 0:
			pending[e.Conn] = true
		case e.Kind == WireClose && e.Call >= start && e.Call <= end && pending[e.Conn] && !subscribed[e.Conn]:
			closed, ok = e.Call, true
		}
	}
	return closed, ok
}

// lastAnswered returns the call of the latest command process p's client
// sent naming lock that was answered by before: the last time the lock's
// key may have been renewed with an answer the client saw. ok is false
// when there is none, or the trace says nothing of p's client.
func (t *WireTrace) lastAnswered(p int, lock string, before int64) (call int64, ok bool) {
	c, known := t.clientOf(p)
	if !known {
		return 0, false
	}
	for _, e := range t.conns[c] {
		if e.Kind == WireCmd && e.Return > 0 && e.Return <= before && e.Call > call && namesLock(e.Args, lock) {
			call, ok = e.Call, true
		}
	}
	return call, ok
}

// isSubscribe reports whether cmd subscribes its connection to a channel.
func isSubscribe(cmd string) bool {
	return slices.Contains([]string{"SUBSCRIBE", "PSUBSCRIBE", "SSUBSCRIBE"}, cmd)
}

// Quote renders a command event for an explanation: "p0 sent PEXPIRE sl
// 1500 at 3.21s, answered 1 at 3.22s".
func (e WireEvent) Quote() string {
	s := fmt.Sprintf("p%d sent %s", e.Process, e.Cmd)
	if e.Args != "" {
		s += " " + e.Args
	}
	s += " at " + fmtTime(e.Call)
	if e.Return > 0 {
		s += fmt.Sprintf(", answered %s at %s", e.Reply, fmtTime(e.Return))
	}
	return s
}
