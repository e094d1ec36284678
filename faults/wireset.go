package faults

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// ClientWire is what a run needs of the RESP proxies in front of one
// client: a trace of what they see, and a pause landed on a reply. A Wire
// is one (a client of a single Redis); a WireSet is one (a client of a
// topology of several servers).
type ClientWire interface {
	// Trace reports every event to f from now on (nil: stop); see
	// Wire.Trace.
	Trace(f func(WireEvent))
	// PauseAtReply runs before once, just before the first reply match
	// accepts is passed on; see Wire.PauseAtReply.
	PauseAtReply(match func(cmd string) bool, before func()) (disarm func() bool)
}

// WireSet is one client's Wires in front of a topology of several Redis
// servers (Sentinel's master and replicas, a Cluster's nodes): one Wire
// per server address the client dials, started on its first dial. A
// go-redis client given Dialer reaches every server through them, also a
// master Sentinel names after a failover, or a node a MOVED reply names.
//
// Guarantees:
//   - Dialer sends an address through a Wire only when route accepts it;
//     any other (a Sentinel's) is dialed directly.
//   - Its trace numbers the connections of all its Wires from 1, in the
//     order each is first seen, so a connection number names one
//     connection of the client; WireEvent.Node is the server's address.
//   - Close stops every Wire it started and waits for them; a dial after
//     Close fails.
type WireSet struct {
	name  string
	route func(addr string) bool

	mu     sync.Mutex       // guards wires, pauses, closed; held while calling into a Wire
	wires  map[string]*Wire // by server address
	pauses []*setPause
	closed bool

	// traceMu guards the trace state: a Wire's goroutines take it, never
	// mu, and nothing is called with it held, so the set's calls into its
	// Wires (under mu) cannot wait on them.
	traceMu sync.Mutex
	tracer  func(WireEvent)
	conns   map[setConn]int64
	next    int64
}

// setConn names one connection of one Wire of a set.
type setConn struct {
	wire *Wire
	conn int64
}

// setPause is a PauseAtReply armed on every Wire of a set, the ones
// started later too; its before runs once.
type setPause struct {
	match   func(cmd string) bool
	before  func()
	disarms []func() bool
}

// NewWireSet returns the empty WireSet of one client, named name, that
// puts a Wire in front of each address route accepts (nil: every address).
func NewWireSet(name string, route func(addr string) bool) *WireSet {
	return &WireSet{name: name, route: route, wires: map[string]*Wire{}, conns: map[setConn]int64{}}
}

// Dialer dials addr through the set's Wire in front of it, started on
// first use (go-redis Options.Dialer).
func (s *WireSet) Dialer(ctx context.Context, network, addr string) (net.Conn, error) {
	target, err := s.Proxy(addr)
	if err != nil {
		return nil, err
	}
	return (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, network, target)
}

// Proxy returns the address a client in any process dials to reach addr
// through the set: its Wire's, started on first use, or addr itself when
// route does not accept it.
func (s *WireSet) Proxy(addr string) (string, error) {
	if s.route != nil && !s.route(addr) {
		return addr, nil
	}
	w, err := s.wireFor(addr)
	if err != nil {
		return "", err
	}
	return w.Addr(), nil
}

// wireFor returns the Wire in front of addr, started if there is none.
func (s *WireSet) wireFor(addr string) (*Wire, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("wire set %s: closed", s.name)
	}
	if w, ok := s.wires[addr]; ok {
		return w, nil
	}
	w, err := StartWire(fmt.Sprintf("%s→%s", s.name, addr), addr)
	if err != nil {
		return nil, err
	}
	s.wires[addr] = w
	if s.tracing() {
		w.Trace(s.relay(w, addr))
	}
	for _, p := range s.pauses {
		p.disarms = append(p.disarms, w.PauseAtReply(p.match, p.before))
	}
	return w, nil
}

// relay is the tracer of w (in front of addr): it renumbers w's
// connections among the set's and names the server.
func (s *WireSet) relay(w *Wire, addr string) func(WireEvent) {
	return func(ev WireEvent) {
		s.traceMu.Lock()
		f := s.tracer
		k := setConn{w, ev.Conn}
		id, ok := s.conns[k]
		if !ok {
			s.next++
			id = s.next
			s.conns[k] = id
		}
		s.traceMu.Unlock()
		if f != nil {
			ev.Conn, ev.Node = id, addr
			f(ev)
		}
	}
}

// Trace makes every Wire of the set, and every one it starts later,
// report to f (nil: stop), with the connections renumbered among the
// set's.
func (s *WireSet) Trace(f func(WireEvent)) {
	s.traceMu.Lock()
	s.tracer = f
	s.traceMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	for addr, w := range s.wires {
		if f == nil {
			w.Trace(nil)
			continue
		}
		w.Trace(s.relay(w, addr))
	}
}

// tracing reports whether the set has a tracer.
func (s *WireSet) tracing() bool {
	s.traceMu.Lock()
	defer s.traceMu.Unlock()
	return s.tracer != nil
}

// PauseAtReply arms a pause on every Wire of the set and on those it
// starts later: before runs once, at the first reply any of them passes
// on that match accepts. disarm disarms them all and reports whether the
// pause went off.
func (s *WireSet) PauseAtReply(match func(cmd string) bool, before func()) (disarm func() bool) {
	var once sync.Once
	p := &setPause{match: match, before: func() { once.Do(before) }}
	s.mu.Lock()
	for _, w := range s.wires {
		p.disarms = append(p.disarms, w.PauseAtReply(p.match, p.before))
	}
	s.pauses = append(s.pauses, p)
	s.mu.Unlock()
	return func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, q := range s.pauses {
			if q == p {
				s.pauses = append(s.pauses[:i], s.pauses[i+1:]...)
				break
			}
		}
		sprang := false
		for _, d := range p.disarms {
			sprang = d() || sprang
		}
		return sprang
	}
}

// Close stops every Wire of the set. Idempotent.
func (s *WireSet) Close() error {
	s.mu.Lock()
	s.closed = true
	wires := s.wires
	s.wires = map[string]*Wire{}
	s.mu.Unlock()
	var first error
	for _, w := range wires {
		if err := w.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
