package faults

import (
	"context"
	"sync"
	"time"
)

// Fault is one thing that can go wrong, aimed at one target. Start breaks it,
// Stop heals it.
//
// Guarantees every implementation in this package gives:
//   - Start returns once the fault is in effect (or with an error, in which
//     case it may be partly in effect: call Stop anyway).
//   - Stop heals whatever Start did. It is idempotent: Stop without Start, or
//     a second Stop, is a no-op that returns nil when nothing is broken.
//   - Both are bounded by ctx (and by the fault's own timeouts); Stop with an
//     expired ctx may leave the fault in effect and says so in its error.
//
// A Fault is not safe for concurrent Start/Stop from several goroutines; the
// Nemesis calls them from one goroutine.
type Fault interface {
	// Name is the fault's kind, e.g. "proxy-blackhole" or "redis-pause".
	Name() string
	// Target names what the fault acts on: a proxy, a server address or a
	// client.
	Target() string
	// Start puts the fault in effect.
	Start(ctx context.Context) error
	// Stop heals the fault. Idempotent.
	Stop(ctx context.Context) error
}

// Window is the interval during which a fault was in effect, as recorded by
// the Nemesis: Start is taken just before Fault.Start is called and End just
// after Fault.Stop returned, so the window covers the whole fault.
type Window struct {
	Name   string    `json:"name"`
	Target string    `json:"target"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
	// Err is the Start or Stop error, if any ("" when both succeeded).
	Err string `json:"err,omitempty"`
}

// fault is the shared implementation behind most faults: a name, a target and
// two functions.
type fault struct {
	name, target string
	targetOf     func() string // if set, the target as it is now
	start, stop  func(ctx context.Context) error
	beganOf      func() time.Time // if set, Began
}

// Beginner is implemented by faults whose effect begins some time after
// Start is called: a stall waits for its target to hold a lock. Began is
// when the effect began (zero: when Start was called); the nemesis opens
// the fault's window then.
type Beginner interface {
	Began() time.Time
}

// Began is when f's effect began (zero: unknown, Start's call).
func (f *fault) Began() time.Time {
	if f.beganOf != nil {
		return f.beganOf()
	}
	return time.Time{}
}

// beganAt is a Began that a start function sets with mark once its effect
// is on.
type beganAt struct {
	mu sync.Mutex
	at time.Time
}

func (b *beganAt) mark() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.at = time.Now()
}

func (b *beganAt) began() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.at
}

func (f *fault) Name() string { return f.name }

func (f *fault) Target() string {
	if f.targetOf != nil {
		return f.targetOf()
	}
	return f.target
}
func (f *fault) Start(ctx context.Context) error { return f.start(ctx) }
func (f *fault) Stop(ctx context.Context) error  { return f.stop(ctx) }

// Func returns a Fault made of two functions, for faults that this package
// does not provide. stop must be idempotent.
func Func(name, target string, start, stop func(ctx context.Context) error) Fault {
	return &fault{name: name, target: target, start: start, stop: stop}
}

// Chosen is a fault that chooses, each time it starts, the fault it runs
// (the current holder's link, the worker that holds next): choose is called
// at Start, Stop stops what it chose, and Target names the chosen fault's
// target once started (before, the empty string), so the recorded window
// names what was hit. Safe for the nemesis and a progress line at once.
func Chosen(name string, choose func(ctx context.Context) Fault) Fault {
	c := &chosen{}
	return &fault{name: name, targetOf: c.target, beganOf: c.began, start: func(ctx context.Context) error {
		f := choose(ctx)
		c.mu.Lock()
		c.cur = f
		c.mu.Unlock()
		return f.Start(ctx)
	}, stop: func(ctx context.Context) error {
		if f := c.current(); f != nil {
			return f.Stop(ctx)
		}
		return nil
	}}
}

// began is when the chosen fault's effect began, if it says.
func (c *chosen) began() time.Time {
	if b, ok := c.current().(Beginner); ok {
		return b.Began()
	}
	return time.Time{}
}

// chosen is the fault a Chosen fault runs now.
type chosen struct {
	mu  sync.Mutex
	cur Fault
}

func (c *chosen) current() Fault {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

func (c *chosen) target() string {
	if f := c.current(); f != nil {
		return f.Target()
	}
	return ""
}

func noop(context.Context) error { return nil }
