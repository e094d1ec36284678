package workloads

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/faults"
	"github.com/lockcheck/lockcheck/model"
)

// wireTracer records what the Wires in front of a run's clients see: each
// connection's open and close and every command with its reply, as
// model.WireEvents on the run's clock, attributed to the process the
// client connection served at the time (bind). It writes them as JSON
// Lines as they come (Deps.WireTrace) and keeps them for the checkers.
// Its methods are safe for concurrent use; stop ends the tracing and
// returns once no Wire reports to it any more.
type wireTracer struct {
	wires []faults.ClientWire

	mu     sync.Mutex
	base   time.Time
	out    *bufio.Writer // nil: kept in memory only
	enc    *json.Encoder
	events []model.WireEvent
	conns  []model.WireEvent // the opens and closes among events
	ready  map[wireConn]bool // connections that answered past their handshake
	procs  map[int]int       // client connection -> the process it serves now
	err    error
}

// wiresOf lists the Wires in front of client connections 0..n-1 (nil when
// wire is nil or returns none).
func wiresOf(wire func(int) faults.ClientWire, n int) []faults.ClientWire {
	if wire == nil {
		return nil
	}
	var out []faults.ClientWire
	for i := range n {
		w := wire(i)
		if w == nil {
			return nil // the trace needs every client's
		}
		out = append(out, w)
	}
	return out
}

// newWireTracer returns the tracer of wires writing to out (nil when there
// are no wires: nothing to trace).
func newWireTracer(wires []faults.ClientWire, out io.Writer) *wireTracer {
	if len(wires) == 0 {
		return nil
	}
	t := &wireTracer{wires: wires, procs: map[int]int{}}
	if out != nil {
		t.out = bufio.NewWriter(out)
		t.enc = json.NewEncoder(t.out)
		t.enc.SetEscapeHTML(false)
	}
	return t
}

// start traces every Wire from now on, on the clock whose time 0 is base.
func (t *wireTracer) start(base time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.base = base
	t.mu.Unlock()
	for i, w := range t.wires {
		w.Trace(func(ev faults.WireEvent) { t.add(i, ev) })
	}
}

// stop ends the tracing and flushes what was written; it returns the
// first error writing the trace met.
func (t *wireTracer) stop() error {
	if t == nil {
		return nil
	}
	for _, w := range t.wires {
		w.Trace(nil)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.out != nil && t.err == nil {
		t.err = t.out.Flush()
	}
	return t.err
}

// bind records that client connection client serves process p from at on.
func (t *wireTracer) bind(p, client int, at int64) {
	if t == nil || client >= len(t.wires) {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.procs[client] = p
	t.write(model.WireEvent{Kind: model.WireBind, Client: client, Process: p, Call: at})
}

// add records ev, seen by client connection i's Wire.
func (t *wireTracer) add(i int, ev faults.WireEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e := model.WireEvent{
		Kind: ev.Kind, Client: i, Process: t.procs[i], Conn: ev.Conn, Node: ev.Node,
		Cmd: ev.Cmd, Args: ev.Args, Reply: ev.Reply, Call: t.at(ev.Call), Return: t.at(ev.Return),
	}
	t.write(e)
}

// at is wall-clock time x on the run's clock (0 for the zero time).
func (t *wireTracer) at(x time.Time) int64 {
	if x.IsZero() {
		return 0
	}
	return max(int64(x.Sub(t.base)), 1)
}

// write keeps e and appends it to the trace; t.mu is held.
func (t *wireTracer) write(e model.WireEvent) {
	t.events = append(t.events, e)
	switch {
	case e.Kind == model.WireOpen || e.Kind == model.WireClose:
		t.conns = append(t.conns, e)
	case e.Kind == model.WireCmd && e.Return > 0 && !handshake[e.Cmd]:
		if t.ready == nil {
			t.ready = map[wireConn]bool{}
		}
		t.ready[wireConn{e.Client, e.Conn}] = true
	}
	if t.enc != nil && t.err == nil {
		if err := t.enc.Encode(e); err != nil {
			t.err = fmt.Errorf("wire trace: %w", err)
		}
	}
}

// trace returns what was recorded, for the checkers (nil: no trace).
func (t *wireTracer) trace() *model.WireTrace {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return model.NewWireTrace(append([]model.WireEvent(nil), t.events...))
}

// reconnected reports whether client connection i, cut from start to end
// (run clock), has as many connections ready since end as it lost in the
// cut: each opened after end and answered a command past its handshake
// (a connection a client has opened may not yet take its commands). This
// is the evidence that its client reconnected, for a client of a pool as
// much as of one connection. Without a trace it reports true (nothing to
// wait for).
func (t *wireTracer) reconnected(i int, start, end int64) bool {
	if t == nil {
		return true
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	var lost, back int
	for _, e := range t.conns {
		switch {
		case e.Client != i, e.Call < start:
		case e.Kind == model.WireClose && e.Call <= end:
			lost++
		case e.Kind == model.WireOpen && e.Call > end && t.ready[wireConn{e.Client, e.Conn}]:
			back++
		}
	}
	return back >= lost
}

// wireConn names one connection of the trace: client connection, and the
// connection's number on its Wire.
type wireConn struct {
	client int
	conn   int64
}

// handshake lists the commands a client sends on a new connection before
// it takes the connection into use.
var handshake = map[string]bool{"AUTH": true, "HELLO": true, "CLIENT": true, "SELECT": true, "READONLY": true}
