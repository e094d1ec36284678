package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Link is one client↔Redis network path that faults can disturb: an
// in-process *Proxy or a *RemoteProxy on a toxiproxy server. Clients must
// dial Addr instead of Redis for the faults to reach them.
type Link interface {
	// Name identifies the link (the toxiproxy proxy name).
	Name() string
	// Addr is the host:port clients dial.
	Addr() string
	// AddToxic adds a toxic; adding a name that exists is an error.
	AddToxic(ctx context.Context, t Toxic) error
	// RemoveToxic removes the named toxic; a missing toxic is not an error.
	RemoveToxic(ctx context.Context, name string) error
	// SetEnabled enables or disables the proxy. Disabling closes every
	// connection through it and refuses new ones; enabling listens again on
	// the same address. Setting the current state is a no-op.
	SetEnabled(ctx context.Context, enabled bool) error
}

// Toxic is a toxiproxy toxic (see the toxiproxy README "Toxics").
type Toxic struct {
	// Name is unique per proxy.
	Name string `json:"name"`
	// Type is the toxic type: latency, timeout, reset_peer, bandwidth, ...
	Type string `json:"type"`
	// Stream is "upstream" (client→Redis) or "downstream" (Redis→client).
	Stream string `json:"stream"`
	// Toxicity is the probability that a connection is affected; the faults
	// in this package use 1.
	Toxicity float32 `json:"toxicity"`
	// Attributes are the type's attributes, e.g. {"latency": 100}.
	Attributes map[string]int64 `json:"attributes"`
}

// Toxic names used by the faults below; a Link should carry no other toxics
// with these names.
const (
	toxicLatency      = "lockcheck_latency"
	toxicBlackholeUp  = "lockcheck_blackhole_up"
	toxicBlackholeDn  = "lockcheck_blackhole_down"
	toxicReset        = "lockcheck_reset"
	streamUpstream    = "upstream"
	streamDownstream  = "downstream"
	toxicTypeLatency  = "latency"
	toxicTypeTimeout  = "timeout"
	toxicTypeResetTCP = "reset_peer"
)

// Latency returns a fault that delays every reply coming back through l by
// latency ± jitter (a toxiproxy latency toxic on the downstream stream), so
// each request/reply round trip takes about latency longer. Connections stay
// open. Note: toxiproxy draws the jitter from the global math/rand, so the
// jitter of individual replies is not reproducible from the run's seed.
func Latency(l Link, latency, jitter time.Duration) Fault {
	return &fault{
		name: "proxy-latency", target: l.Name(),
		start: func(ctx context.Context) error {
			return l.AddToxic(ctx, Toxic{Name: toxicLatency, Type: toxicTypeLatency, Stream: streamDownstream, Toxicity: 1,
				Attributes: map[string]int64{"latency": latency.Milliseconds(), "jitter": jitter.Milliseconds()}})
		},
		stop: func(ctx context.Context) error { return l.RemoveToxic(ctx, toxicLatency) },
	}
}

// BlackHole returns a silent partition: a toxiproxy timeout toxic with
// timeout 0 on both streams drops every byte in both directions and closes
// nothing, so requests in flight and new requests get no answer until their
// own timeout (the go-redis ReadTimeout or ctx deadline). New TCP connects to
// the proxy still succeed (unlike a real partition), but their handshake is
// black-holed too.
//
// Stop heals by disabling the proxy (which resets every connection it held,
// as removing a timeout toxic would anyway), removing the toxics and
// enabling it again: clients reconnect.
func BlackHole(l Link) Fault {
	add := func(ctx context.Context) error {
		for _, t := range []Toxic{
			{Name: toxicBlackholeUp, Type: toxicTypeTimeout, Stream: streamUpstream, Toxicity: 1, Attributes: map[string]int64{"timeout": 0}},
			{Name: toxicBlackholeDn, Type: toxicTypeTimeout, Stream: streamDownstream, Toxicity: 1, Attributes: map[string]int64{"timeout": 0}},
		} {
			if err := l.AddToxic(ctx, t); err != nil {
				return err
			}
		}
		return nil
	}
	heal := func(ctx context.Context) error { return resetHeal(ctx, l, toxicBlackholeUp, toxicBlackholeDn) }
	start, stop := healOnlyAfterStart(add, heal)
	return &fault{name: "proxy-blackhole", target: l.Name(), start: start, stop: stop}
}

// Reset returns a fault under which every connection through l is reset
// (TCP RST, a toxiproxy reset_peer toxic on the upstream stream) as soon as
// the client sends anything: commands fail at once with a connection error
// (EOF / connection reset), and reconnects are reset again. Stop heals like
// BlackHole's.
func Reset(l Link) Fault {
	add := func(ctx context.Context) error {
		return l.AddToxic(ctx, Toxic{Name: toxicReset, Type: toxicTypeResetTCP, Stream: streamUpstream, Toxicity: 1,
			Attributes: map[string]int64{"timeout": 0}})
	}
	heal := func(ctx context.Context) error { return resetHeal(ctx, l, toxicReset) }
	start, stop := healOnlyAfterStart(add, heal)
	return &fault{name: "proxy-reset", target: l.Name(), start: start, stop: stop}
}

// healOnlyAfterStart wraps a start and a stop whose healing has side effects
// (resetting connections) so that stop runs only after a start (even a failed
// one, which may have half broken things) and only until it has succeeded:
// Stop without Start, or a second Stop, leaves the link alone.
func healOnlyAfterStart(start, stop func(context.Context) error) (func(context.Context) error, func(context.Context) error) {
	var mu sync.Mutex
	var broken bool
	return func(ctx context.Context) error {
			mu.Lock()
			broken = true
			mu.Unlock()
			return start(ctx)
		}, func(ctx context.Context) error {
			mu.Lock()
			defer mu.Unlock()
			if !broken {
				return nil
			}
			if err := stop(ctx); err != nil {
				return err
			}
			broken = false
			return nil
		}
}

// Down returns a loud partition: the proxy is disabled, every established
// connection through it is closed at once (clients read EOF) and new
// connects are refused. Stop enables it again on the same address.
func Down(l Link) Fault {
	return &fault{
		name: "proxy-down", target: l.Name(),
		start: func(ctx context.Context) error { return l.SetEnabled(ctx, false) },
		stop:  func(ctx context.Context) error { return l.SetEnabled(ctx, true) },
	}
}

// resetHeal disables l (closing its connections while the toxics still
// consume their data), removes the named toxics and enables l again. Removing
// a timeout or reset toxic from live connections can leave toxiproxy's
// goroutines blocked on data that nobody reads any more; closing the
// connections first lets every link drain and exit.
func resetHeal(ctx context.Context, l Link, toxics ...string) error {
	var errs []error
	if err := l.SetEnabled(ctx, false); err != nil {
		errs = append(errs, err)
	}
	for _, name := range toxics {
		if err := l.RemoveToxic(ctx, name); err != nil {
			errs = append(errs, err)
		}
	}
	if err := l.SetEnabled(ctx, true); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("heal proxy %s: %w", l.Name(), err)
	}
	return nil
}
