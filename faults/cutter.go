package faults

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrCut is the error a dial through a Cutter returns during an outage.
var ErrCut = errors.New("faults: connection cut (outage)")

// Cutter drops one client's connections from the client side, as a reset
// NAT entry, a restarted load balancer or a flapping link would: Cut closes
// every connection the client has open (requests in flight fail, pub/sub
// subscriptions drop) and refuses its dials until the outage ends; then the
// client reconnects on its own (go-redis redials, its PubSub resubscribes).
// No proxy sits in the path, so a Cutter costs nothing between outages.
type Cutter struct {
	mu    sync.Mutex
	conns map[*cutConn]struct{}
	until time.Time
}

// NewCutter returns a Cutter with no outage.
func NewCutter() *Cutter { return &Cutter{conns: map[*cutConn]struct{}{}} }

// Install makes o's client dial through c: o.Dialer (redis.NewDialer(o)
// when nil, which also does TLS) wrapped so that c tracks every
// connection. Call it before redis.NewClient(o).
func (c *Cutter) Install(o *redis.Options) {
	dial := o.Dialer
	if dial == nil {
		dial = redis.NewDialer(o)
	}
	o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if c.cut() {
			return nil, ErrCut
		}
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		cc := &cutConn{Conn: conn, c: c}
		c.mu.Lock()
		defer c.mu.Unlock()
		if time.Now().Before(c.until) {
			_ = conn.Close()
			return nil, ErrCut
		}
		c.conns[cc] = struct{}{}
		return cc, nil
	}
}

func (c *Cutter) cut() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Before(c.until)
}

// Cut closes every open connection and refuses dials for outage. It
// returns how many connections it closed.
func (c *Cutter) Cut(outage time.Duration) int {
	c.mu.Lock()
	c.until = time.Now().Add(outage)
	open := make([]*cutConn, 0, len(c.conns))
	for cc := range c.conns {
		open = append(open, cc)
	}
	clear(c.conns)
	c.mu.Unlock()
	for _, cc := range open {
		_ = cc.Conn.Close()
	}
	return len(open)
}

// cutConn is a connection a Cutter tracks until it is closed.
type cutConn struct {
	net.Conn
	c    *Cutter
	once sync.Once
}

func (cc *cutConn) Close() error {
	cc.once.Do(func() {
		cc.c.mu.Lock()
		delete(cc.c.conns, cc)
		cc.c.mu.Unlock()
	})
	return cc.Conn.Close()
}

// Cutters keeps one Cutter per client of a run, by client index; the zero
// value is ready to use and safe for concurrent use.
type Cutters struct {
	mu sync.Mutex
	m  map[int]*Cutter
}

// Install gives client i a new Cutter on o (see Cutter.Install).
func (cs *Cutters) Install(i int, o *redis.Options) {
	c := NewCutter()
	c.Install(o)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.m == nil {
		cs.m = map[int]*Cutter{}
	}
	cs.m[i] = c
}

// Cut cuts client i's connections for outage (nothing without a Cutter).
func (cs *Cutters) Cut(i int, outage time.Duration) {
	cs.mu.Lock()
	c := cs.m[i]
	cs.mu.Unlock()
	if c != nil {
		c.Cut(outage)
	}
}
