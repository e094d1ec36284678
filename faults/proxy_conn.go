package faults

import (
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// proxyChunk is what one read from a side of a proxied connection returned,
// and when.
type proxyChunk struct {
	data []byte
	at   time.Time
}

// proxyConn is one client connection through a Proxy and its connection to
// Redis. Each stream has a reader, which reads chunks as they come, and a
// writer, which passes each on as the toxics of its stream say when it
// comes out: a latency toxic holds it until its read time plus latency ±
// jitter (so a delay does not add up over a pipeline, as in toxiproxy); a
// timeout toxic drops it; a reset_peer toxic on the stream resets the
// client's connection (TCP RST) and drops it. Either side ending closes
// both.
type proxyConn struct {
	client, server net.Conn
	done           chan struct{}
	once           sync.Once
}

// serve accepts client connections on ln until it is closed.
func (p *Proxy) serve(ln net.Listener) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.serveLocked(ln)
}

// serveLocked makes ln the proxy's listener and starts its accept loop.
// p.mu is held.
func (p *Proxy) serveLocked(ln net.Listener) {
	p.ln = ln
	p.wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return // closed: disabled or Close
			}
			p.wg.Go(func() { p.connect(ln, client) })
		}
	})
}

// connect dials Redis for client and starts the pumps of both streams,
// unless the listener that accepted client was closed meanwhile.
func (p *Proxy) connect(ln net.Listener, client net.Conn) {
	server, err := net.DialTimeout("tcp", p.upstream, upstreamDialTimeout)
	if err != nil {
		_ = client.Close()
		return
	}
	c := &proxyConn{client: client, server: server, done: make(chan struct{})}
	p.mu.Lock()
	if p.ln != ln {
		p.mu.Unlock()
		c.close(false)
		return
	}
	p.conns[c] = struct{}{}
	p.mu.Unlock()
	p.pump(c, client, server, streamUpstream)
	p.pump(c, server, client, streamDownstream)
	p.wg.Go(func() {
		<-c.done
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	})
}

// pump starts the reader and the writer of one stream, from src to dst.
func (p *Proxy) pump(c *proxyConn, src, dst net.Conn, stream string) {
	chunks := make(chan proxyChunk, 64)
	p.wg.Go(func() {
		defer close(chunks)
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				select {
				case chunks <- proxyChunk{data: append([]byte(nil), buf[:n]...), at: time.Now()}:
				case <-c.done:
					return
				}
			}
			if err != nil {
				c.close(false)
				return
			}
		}
	})
	p.wg.Go(func() {
		for ch := range chunks {
			if !p.pass(c, ch, dst, stream) {
				c.close(false)
				return
			}
		}
	})
}

// pass applies stream's toxics to one chunk and writes what is left to
// dst; false when the connection is done.
func (p *Proxy) pass(c *proxyConn, ch proxyChunk, dst net.Conn, stream string) bool {
	if _, ok := p.toxic(stream, toxicTypeResetTCP); ok {
		c.close(true)
		return false
	}
	if _, ok := p.toxic(stream, toxicTypeTimeout); ok {
		return true // dropped on the floor
	}
	if t, ok := p.toxic(stream, toxicTypeLatency); ok {
		delay := time.Duration(t.Attributes["latency"]) * time.Millisecond
		if j := t.Attributes["jitter"]; j > 0 {
			delay += time.Duration(rand.Int64N(2*j)-j) * time.Millisecond
		}
		timer := time.NewTimer(time.Until(ch.at.Add(delay)))
		select {
		case <-timer.C:
		case <-c.done:
			timer.Stop()
			return false
		}
	}
	_, err := dst.Write(ch.data)
	return err == nil
}

// close closes both sides once; reset makes the client's side a TCP RST.
func (c *proxyConn) close(reset bool) {
	c.once.Do(func() {
		if tc, ok := c.client.(*net.TCPConn); ok && reset {
			_ = tc.SetLinger(0)
		}
		close(c.done)
		_ = c.client.Close()
		_ = c.server.Close()
	})
}
