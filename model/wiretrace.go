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
	// answers holds the reply times of each client's commands, sorted.
	answers map[int][]int64
	binds   map[int][]WireEvent

	mu      sync.Mutex // guards traffic
	traffic map[trafficKey][]int64
}

// NewWireTrace indexes events (in any order).
func NewWireTrace(events []WireEvent) *WireTrace {
	t := &WireTrace{Events: events, answers: map[int][]int64{}, binds: map[int][]WireEvent{}}
	for _, e := range events {
		switch {
		case e.Kind == WireBind:
			t.binds[e.Process] = append(t.binds[e.Process], e)
		case e.Kind == WireCmd && e.Return > 0:
			t.answers[e.Client] = append(t.answers[e.Client], e.Return)
		}
	}
	for _, as := range t.answers {
		slices.Sort(as)
	}
	return t
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

// Reconnected returns when process p's client was first answered after
// time end (a fault's end): the end of its reconnection as recorded. A
// connection the fault closed answers nothing, so the first answer after
// end comes on a connection that survived the fault or on a new one. ok is
// false when the trace says nothing of p's client; answered is false when
// no command of it was answered after end: it sent none, so nothing of it
// waited on a reconnection.
func (t *WireTrace) Reconnected(p int, end int64) (at int64, answered, ok bool) {
	c, ok := t.clientOf(p)
	if !ok {
		return 0, false, false
	}
	as := t.answers[c]
	i, _ := slices.BinarySearch(as, end+1)
	if i == len(as) {
		return 0, false, true
	}
	return as[i], true, true
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
