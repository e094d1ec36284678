package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// Remote drives a toxiproxy server (toxiproxy-server, any machine) through
// its HTTP API, for Redis deployments that lockcheck did not start. The
// proxies it returns are Links, so every network fault works the same way as
// with an in-process Proxy.
//
// It speaks the HTTP API that github.com/Shopify/toxiproxy/v2/client speaks
// (and decodes with that package's types), but makes its own requests: the
// v2.5.0 client takes no context, uses http.DefaultClient without a timeout
// and leaves some response bodies open, so its calls cannot be bounded and
// it would leak connections. Every call here is bounded by its ctx and by
// Timeout. Methods are safe for concurrent use.
type Remote struct {
	endpoint *url.URL
	hc       *http.Client
}

// NewRemote returns a driver for the toxiproxy server at endpoint
// ("host:8474" or "http://host:8474"). Each HTTP call also gives up after
// timeout (default 5 s when timeout <= 0). Close releases its connections.
func NewRemote(endpoint string, timeout time.Duration) (*Remote, error) {
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("toxiproxy endpoint %q: want host:port or http://host:port", endpoint)
	}
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Remote{endpoint: u, hc: &http.Client{Timeout: timeout, Transport: &http.Transport{}}}, nil
}

// Close closes the driver's idle HTTP connections. The remote proxies are
// left as they are (see RemoteProxy.Delete).
func (r *Remote) Close() error {
	r.hc.CloseIdleConnections()
	return nil
}

// CreateProxy creates a proxy named name on the server, listening on listen
// (an address on the toxiproxy machine, e.g. "0.0.0.0:26379" or
// "127.0.0.1:0") and forwarding to upstream (Redis, as the toxiproxy machine
// reaches it), and enables it.
func (r *Remote) CreateProxy(ctx context.Context, name, listen, upstream string) (*RemoteProxy, error) {
	var p toxiclient.Proxy
	err := r.do(ctx, http.MethodPost, "/proxies", toxiclient.Proxy{Name: name, Listen: listen, Upstream: upstream, Enabled: true}, http.StatusCreated, &p)
	if err != nil {
		return nil, fmt.Errorf("create proxy %s: %w", name, err)
	}
	return r.proxy(p), nil
}

// Proxy returns the existing proxy named name.
func (r *Remote) Proxy(ctx context.Context, name string) (*RemoteProxy, error) {
	var p toxiclient.Proxy
	if err := r.do(ctx, http.MethodGet, "/proxies/"+url.PathEscape(name), nil, http.StatusOK, &p); err != nil {
		return nil, fmt.Errorf("get proxy %s: %w", name, err)
	}
	return r.proxy(p), nil
}

func (r *Remote) proxy(p toxiclient.Proxy) *RemoteProxy {
	addr := p.Listen
	// A proxy listening on every interface is reached through the server's
	// own host name.
	if host, port, err := net.SplitHostPort(p.Listen); err == nil {
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			addr = net.JoinHostPort(r.endpoint.Hostname(), port)
		}
	}
	return &RemoteProxy{r: r, name: p.Name, addr: addr, upstream: p.Upstream}
}

// RemoteProxy is one proxy on a toxiproxy server. It implements Link.
type RemoteProxy struct {
	r                    *Remote
	name, addr, upstream string
}

// Name is the proxy's name on the server.
func (p *RemoteProxy) Name() string { return p.name }

// Addr is the host:port clients dial.
func (p *RemoteProxy) Addr() string { return p.addr }

// Upstream is the address the proxy forwards to.
func (p *RemoteProxy) Upstream() string { return p.upstream }

// AddToxic adds a toxic on the server.
func (p *RemoteProxy) AddToxic(ctx context.Context, t Toxic) error {
	attrs := make(toxiclient.Attributes, len(t.Attributes))
	for k, v := range t.Attributes {
		attrs[k] = v
	}
	body := toxiclient.Toxic{Name: t.Name, Type: t.Type, Stream: t.Stream, Toxicity: t.Toxicity, Attributes: attrs}
	if err := p.r.do(ctx, http.MethodPost, p.path("/toxics"), body, http.StatusOK, nil); err != nil {
		return fmt.Errorf("proxy %s: add toxic %s: %w", p.name, t.Name, err)
	}
	return nil
}

// RemoveToxic removes the named toxic; a missing toxic is not an error.
func (p *RemoteProxy) RemoveToxic(ctx context.Context, name string) error {
	err := p.r.do(ctx, http.MethodDelete, p.path("/toxics/"+url.PathEscape(name)), nil, http.StatusNoContent, nil)
	var apiErr *toxiclient.ApiError
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound && strings.Contains(apiErr.Message, "toxic not found") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("proxy %s: remove toxic %s: %w", p.name, name, err)
	}
	return nil
}

// SetEnabled enables or disables the proxy on the server (see Link).
func (p *RemoteProxy) SetEnabled(ctx context.Context, enabled bool) error {
	body := map[string]bool{"enabled": enabled}
	if err := p.r.do(ctx, http.MethodPost, p.path(""), body, http.StatusOK, nil); err != nil {
		return fmt.Errorf("proxy %s: set enabled=%v: %w", p.name, enabled, err)
	}
	return nil
}

// Delete removes the proxy from the server, closing its connections.
func (p *RemoteProxy) Delete(ctx context.Context) error {
	if err := p.r.do(ctx, http.MethodDelete, p.path(""), nil, http.StatusNoContent, nil); err != nil {
		return fmt.Errorf("delete proxy %s: %w", p.name, err)
	}
	return nil
}

func (p *RemoteProxy) path(suffix string) string {
	return "/proxies/" + url.PathEscape(p.name) + suffix
}

// do sends one request with a JSON body (when in != nil), checks the status
// and decodes the JSON answer into out (when out != nil). A toxiproxy error
// answer is returned as a *toxiclient.ApiError.
func (r *Remote) do(ctx context.Context, method, path string, in any, want int, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.endpoint.JoinPath(path).String(), body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		apiErr := &toxiclient.ApiError{Status: resp.StatusCode}
		if json.Unmarshal(b, apiErr) != nil || apiErr.Message == "" {
			apiErr.Message = strings.TrimSpace(string(b))
		}
		apiErr.Status = resp.StatusCode
		return apiErr
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
