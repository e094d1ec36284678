package target

import (
	"errors"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockcheck/lockcheck/workloads/catalog"
	"github.com/lockcheck/lockcheck/workloads/scenario"
	"github.com/lockcheck/lockcheck/workloads/subject"
)

// A target's run dependencies: the shipped locks unless a registry is
// given; reconnects only where the target dials the clients itself.
func TestDeps(t *testing.T) {
	opts := func() *redis.Options { return &redis.Options{Addr: "127.0.0.1:1"} }
	d := FromOptions(opts, "test").Deps()
	if d.Registry != catalog.Subjects || d.Reconnect == nil || d.Dial == nil {
		t.Errorf("FromOptions: registry %p (want catalog.Subjects), reconnect set %v", d.Registry, d.Reconnect != nil)
	}
	reg, err := subject.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	tgt := FromOptions(opts, "test")
	tgt.Registry = reg
	if got := tgt.Deps().Registry; got != reg {
		t.Errorf("Deps ignores the target's registry")
	}
	c, err := tgt.Dial(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// go-redis keeps MaxRetries -1 as 0 (its default is 3).
	if o := c.(*redis.Client).Options(); o.MaxRetries != 0 || !o.ContextTimeoutEnabled {
		t.Errorf("a run's client retries (%d) or ignores ctx deadlines (%v)", o.MaxRetries, o.ContextTimeoutEnabled)
	}
	env := FromEnv(&scenario.Env{Desc: "deployment"})
	if d := env.Deps(); d.Reconnect != nil || env.Desc != "deployment" || env.Options() != nil {
		t.Errorf("FromEnv: reconnect set %v, desc %q", d.Reconnect != nil, env.Desc)
	}
}

// The hiccup watcher's probe reaches the target's Redis itself, behind
// no client's Wire or cutter, is made once for every run, and closes with
// the target; a deployment's is its admin client.
func TestDepsProbe(t *testing.T) {
	tgt := FromOptions(func() *redis.Options { return &redis.Options{Addr: "127.0.0.1:1"} }, "test")
	tgt.Wired = true
	c, err := tgt.Dial(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	probe, ok := tgt.Deps().Probe.(*redis.Client)
	if !ok {
		t.Fatalf("probe %T, want a client of the target's Redis", tgt.Deps().Probe)
	}
	if got, client := probe.Options().Addr, c.(*redis.Client).Options().Addr; got != "127.0.0.1:1" || got == client {
		t.Errorf("probe dials %s (the first client %s), want the Redis itself", got, client)
	}
	if tgt.Deps().Probe != probe {
		t.Errorf("a second run gets another probe")
	}
	if err := tgt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := probe.Ping(t.Context()).Err(); !errors.Is(err, redis.ErrClosed) {
		t.Errorf("probe after Close: %v, want %v", err, redis.ErrClosed)
	}
	admin := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer admin.Close()
	if got := FromEnv(&scenario.Env{Admin: admin}).Deps().Probe; got != admin {
		t.Errorf("a deployment's probe is %v, want its admin client", got)
	}
}
