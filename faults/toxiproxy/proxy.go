// Package toxiproxy runs the client links of lockcheck's topologies
// through Shopify's toxiproxy, in process: Register makes faults.StartLink
// start a toxiproxy proxy instead of the faults package's own light proxy.
// The lockcheck CLI calls it when it assembles itself, so every published
// run goes through toxiproxy; a go test suite that imports only locktest
// builds no toxiproxy server.
package toxiproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"

	"github.com/lockcheck/lockcheck/faults"
)

// Register makes faults.StartLink start every later client link with
// Start. Calling it again changes nothing.
func Register() { faults.RegisterLocalLink(startLink) }

// startLink is Start as a faults.LocalLink starter.
func startLink(name, upstream string) (faults.LocalLink, error) { return Start(name, upstream) }

// Proxy is an in-process toxiproxy proxy on 127.0.0.1 (ephemeral port) in
// front of one Redis address. It implements faults.Link. Give every client its own
// Proxy so that faults can target one client's path to Redis.
//
// The proxy runs inside this process (the toxiproxy library, no HTTP API).
// Close stops it and closes every connection through it. Methods are safe for
// concurrent use.
type Proxy struct {
	p    *toxiproxy.Proxy
	addr string

	mu     sync.Mutex
	closed bool
}

// Start starts a proxy named name on 127.0.0.1:0 that forwards to
// upstream (a Redis host:port). Clients dial Addr().
func Start(name, upstream string) (*Proxy, error) {
	// The ApiServer is only the holder of the logger and metrics the proxy
	// needs; it never listens. Metrics stay disabled.
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p := toxiproxy.NewProxy(srv, name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("start proxy %s → %s: %w", name, upstream, err)
	}
	p.Lock()
	addr := p.Listen // the real address after Start; re-enabling reuses it
	p.Unlock()
	return &Proxy{p: p, addr: addr}, nil
}

// Name is the proxy's name.
func (p *Proxy) Name() string { return p.p.Name }

// Addr is the host:port clients dial; it stays the same across Down/heal.
func (p *Proxy) Addr() string { return p.addr }

// Upstream is the Redis address the proxy forwards to.
func (p *Proxy) Upstream() string { return p.p.Upstream }

// AddToxic adds a toxic to every current and future connection.
func (p *Proxy) AddToxic(_ context.Context, t faults.Toxic) error {
	if err := p.check(); err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	if _, err := p.p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
		return fmt.Errorf("proxy %s: add toxic %s: %w", p.Name(), t.Name, err)
	}
	return nil
}

// RemoveToxic removes the named toxic; a missing toxic is not an error.
func (p *Proxy) RemoveToxic(ctx context.Context, name string) error {
	err := p.p.Toxics.RemoveToxic(ctx, name)
	if err != nil && !errors.Is(err, toxiproxy.ErrToxicNotFound) {
		return fmt.Errorf("proxy %s: remove toxic %s: %w", p.Name(), name, err)
	}
	return nil
}

// SetEnabled enables or disables the proxy (see faults.Link). Enabling a closed
// proxy is an error; disabling it is a no-op.
func (p *Proxy) SetEnabled(_ context.Context, enabled bool) error {
	if !enabled {
		p.p.Stop()
		return nil
	}
	// Hold mu so that Close cannot slip in between the check and Start.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("proxy %s: %w", p.Name(), errProxyClosed)
	}
	if err := p.p.Start(); err != nil && !errors.Is(err, toxiproxy.ErrProxyAlreadyStarted) {
		return fmt.Errorf("proxy %s: enable on %s: %w", p.Name(), p.addr, err)
	}
	return nil
}

// Close stops the proxy, closes its connections and removes its toxics. It
// is idempotent. toxiproxy's per-connection goroutines exit shortly after.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.p.Stop()
	p.p.Toxics.ResetToxics(context.Background())
	return nil
}

// errProxyClosed is returned by a Proxy's methods after Close.
var errProxyClosed = errors.New("proxy closed")

func (p *Proxy) check() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("proxy %s: %w", p.Name(), errProxyClosed)
	}
	return nil
}
