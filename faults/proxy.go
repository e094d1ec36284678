package faults

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Proxy is an in-process TCP proxy on 127.0.0.1 (ephemeral port) in front
// of one Redis address, with the toxics of this package's faults: latency
// (with jitter), timeout (0: a black hole) and reset_peer, each with
// toxiproxy's meaning (how: proxy_conn.go). It implements Link. Give every
// client its own Proxy so that faults can target one client's path to
// Redis. (A *RemoteProxy drives a real toxiproxy server and every toxic it
// has.)
//
// It runs inside this process, with no library of its own: a test that
// imports this package does not build a toxiproxy server. Close stops it,
// closes every connection through it and waits for its goroutines. Methods
// are safe for concurrent use.
type Proxy struct {
	name, upstream, addr string

	mu     sync.Mutex
	ln     net.Listener // nil while disabled
	conns  map[*proxyConn]struct{}
	toxics map[string]Toxic
	closed bool
	wg     sync.WaitGroup // the accept loops and the connections' pumps
}

// ErrToxicUnsupported is returned by a Proxy's AddToxic for a toxic it
// does not implement (use a toxiproxy server, RemoteProxy, for those).
var ErrToxicUnsupported = errors.New("toxic not supported by the in-process proxy")

// errProxyClosed is returned by a Proxy's methods after Close.
var errProxyClosed = errors.New("proxy closed")

// upstreamDialTimeout bounds the proxy's connect to Redis for each client
// connection.
const upstreamDialTimeout = 5 * time.Second

// StartProxy starts a proxy named name on 127.0.0.1:0 that forwards to
// upstream (a Redis host:port). Clients dial Addr().
func StartProxy(name, upstream string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start proxy %s → %s: %w", name, upstream, err)
	}
	p := &Proxy{name: name, upstream: upstream, addr: ln.Addr().String(), conns: map[*proxyConn]struct{}{}, toxics: map[string]Toxic{}}
	p.serve(ln)
	return p, nil
}

// Name is the proxy's name.
func (p *Proxy) Name() string { return p.name }

// Addr is the host:port clients dial; it stays the same across Down/heal.
func (p *Proxy) Addr() string { return p.addr }

// Upstream is the Redis address the proxy forwards to.
func (p *Proxy) Upstream() string { return p.upstream }

// AddToxic adds a toxic to every current and future connection: a latency
// (attributes latency and jitter, ms), timeout (timeout 0: every byte is
// dropped, nothing is closed) or reset_peer (timeout 0) toxic, on either
// stream, with toxicity 1. Others fail with ErrToxicUnsupported; a name
// that exists is an error.
func (p *Proxy) AddToxic(_ context.Context, t Toxic) error {
	if err := supported(t); err != nil {
		return fmt.Errorf("proxy %s: add toxic %s: %w", p.name, t.Name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("proxy %s: %w", p.name, errProxyClosed)
	}
	if _, ok := p.toxics[t.Name]; ok {
		return fmt.Errorf("proxy %s: add toxic %s: a toxic of that name exists", p.name, t.Name)
	}
	p.toxics[t.Name] = t
	return nil
}

// supported reports why t is not a toxic Proxy implements.
func supported(t Toxic) error {
	if t.Stream != streamUpstream && t.Stream != streamDownstream {
		return fmt.Errorf("stream %q: want %s or %s", t.Stream, streamUpstream, streamDownstream)
	}
	if t.Toxicity != 1 {
		return fmt.Errorf("%w: toxicity %v (only 1)", ErrToxicUnsupported, t.Toxicity)
	}
	switch t.Type {
	case toxicTypeLatency:
		return nil
	case toxicTypeTimeout, toxicTypeResetTCP:
		if t.Attributes["timeout"] != 0 {
			return fmt.Errorf("%w: %s with timeout %d (only 0)", ErrToxicUnsupported, t.Type, t.Attributes["timeout"])
		}
		return nil
	}
	return fmt.Errorf("%w: type %q", ErrToxicUnsupported, t.Type)
}

// RemoveToxic removes the named toxic; a missing toxic is not an error.
func (p *Proxy) RemoveToxic(_ context.Context, name string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.toxics, name)
	return nil
}

// SetEnabled enables or disables the proxy (see Link). Enabling a closed
// proxy is an error; disabling it is a no-op.
func (p *Proxy) SetEnabled(_ context.Context, enabled bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !enabled {
		p.disableLocked()
		return nil
	}
	if p.closed {
		return fmt.Errorf("proxy %s: %w", p.name, errProxyClosed)
	}
	if p.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("proxy %s: enable on %s: %w", p.name, p.addr, err)
	}
	p.serveLocked(ln)
	return nil
}

// Close stops the proxy, closes its connections, removes its toxics and
// waits for its goroutines. It is idempotent.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.disableLocked()
	clear(p.toxics)
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// disableLocked closes the listener and every connection. p.mu is held.
func (p *Proxy) disableLocked() {
	if p.ln != nil {
		_ = p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.close(false)
	}
	clear(p.conns)
}

// toxic returns the toxic of type typ on stream, if any. p.mu is not held.
func (p *Proxy) toxic(stream, typ string) (Toxic, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, t := range p.toxics {
		if t.Stream == stream && t.Type == typ {
			return t, true
		}
	}
	return Toxic{}, false
}
