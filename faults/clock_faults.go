package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Clock faults move wall clocks: those of processes that run through the
// clock shim (a Clock: a Server started with ServerConfig.ClockShim, or a
// driver process given a Clock's Env), or in-process ones (any Offsetter,
// such as impl.OffsetClock). Monotonic clocks never move. Every clock fault's
// Stop puts its clocks back at offset 0 (real time) and is idempotent; a
// crash of lockcheck is healed by SweepStale at the next start.

// Offsetter is a clock whose offset from real time can be set.
type Offsetter interface {
	Set(d time.Duration)
}

// ClockJump returns a fault that moves every clock by d at once (Start)
// and back to real time (Stop): d > 0 jumps ahead, so Redis expires keys
// early (a lease ends before its holder's clock says so); d < 0 jumps back,
// so keys outlive their TTL. target names the clocks' owner in the window.
func ClockJump(clocks []Offsetter, target string, d time.Duration) Fault {
	return &fault{
		name: "clock-jump", target: target + " " + signed(d),
		start: func(context.Context) error { return setClocks(clocks, d) },
		stop:  func(context.Context) error { return setClocks(clocks, 0) },
	}
}

// ClockSkew returns a fault that sets clocks[i] to offsets[i] (Start), each
// clock its own fixed offset, and heals them all (Stop).
func ClockSkew(clocks []Offsetter, target string, offsets []time.Duration) Fault {
	return &fault{
		name: "clock-skew", target: fmt.Sprintf("%s %v", target, offsets),
		start: func(context.Context) error {
			if len(offsets) != len(clocks) {
				return fmt.Errorf("clock-skew: %d offsets for %d clocks", len(offsets), len(clocks))
			}
			for i, c := range clocks {
				c.Set(offsets[i])
			}
			return nil
		},
		stop: func(context.Context) error { return setClocks(clocks, 0) },
	}
}

// ClockStrobe returns a fault that flips every clock between offsets a and
// b every period (Start sets a at once) until Stop, which stops the flipping
// goroutine, waits for it and heals the clocks.
func ClockStrobe(clocks []Offsetter, target string, a, b, period time.Duration) Fault {
	return moving("clock-strobe", fmt.Sprintf("%s %s/%s every %v", target, signed(a), signed(b), period), clocks, period,
		func(n int, _ time.Duration) time.Duration {
			if n%2 == 0 {
				return a
			}
			return b
		})
}

// ClockDrift returns a fault under which every clock runs fast (rate > 0)
// or slow (rate < 0) by rate seconds per second: the offset grows from 0
// at Start, updated every tick, until Stop heals the clocks.
func ClockDrift(clocks []Offsetter, target string, rate float64, tick time.Duration) Fault {
	return moving("clock-drift", fmt.Sprintf("%s %+.3f s/s", target, rate), clocks, tick,
		func(_ int, elapsed time.Duration) time.Duration {
			return time.Duration(rate * float64(elapsed))
		})
}

// moving is a fault whose clocks are set to offset(n, elapsed) at Start
// (n 0) and every tick after (n 1, 2, ...) by a goroutine that Stop ends
// and waits for.
func moving(name, target string, clocks []Offsetter, tick time.Duration, offset func(n int, elapsed time.Duration) time.Duration) Fault {
	var (
		mu   sync.Mutex
		quit chan struct{}
		done chan struct{}
	)
	start := func(context.Context) error {
		if tick <= 0 {
			return fmt.Errorf("%s: tick %v, want > 0", name, tick)
		}
		mu.Lock()
		defer mu.Unlock()
		if quit != nil {
			return fmt.Errorf("%s: already started", name)
		}
		begin := time.Now()
		if err := setClocks(clocks, offset(0, 0)); err != nil {
			return err
		}
		quit, done = make(chan struct{}), make(chan struct{})
		go func(quit <-chan struct{}, done chan<- struct{}) {
			defer close(done)
			t := time.NewTicker(tick)
			defer t.Stop()
			for n := 1; ; n++ {
				select {
				case <-quit:
					return
				case <-t.C:
					_ = setClocks(clocks, offset(n, time.Since(begin)))
				}
			}
		}(quit, done)
		return nil
	}
	stop := func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if quit != nil {
			close(quit)
			<-done // the loop returns at its next select: bounded by one setClocks
			quit, done = nil, nil
		}
		return setClocks(clocks, 0)
	}
	return &fault{name: name, target: target, start: start, stop: stop}
}

// setClocks sets every clock to d.
func setClocks(clocks []Offsetter, d time.Duration) error {
	if len(clocks) == 0 {
		return errors.New("clock fault: no clocks (is the server run through the clock shim?)")
	}
	for _, c := range clocks {
		if c == nil {
			return errors.New("clock fault: a nil clock")
		}
		c.Set(d)
	}
	return nil
}

// ClockJumpSlewed is ClockJump whose Stop does not jump back but slews the
// clocks back to real time at slew seconds per second (as NTP corrects a
// clock), returning when they are healed or ctx ends (then it heals them at
// once and reports ctx's error). Healing a backward jump at once would be a
// forward jump, which expires keys early: slewing at no more than 1 s/s
// (the clock at most twice as fast) takes at most half of any remaining TTL
// per renewal period and so breaks no lease that renews at lease/3.
func ClockJumpSlewed(clocks []Offsetter, target string, d time.Duration, slew float64) Fault {
	const tick = 10 * time.Millisecond
	return &fault{
		name: "clock-jump", target: fmt.Sprintf("%s %s (healed at %.2f s/s)", target, signed(d), slew),
		start: func(context.Context) error { return setClocks(clocks, d) },
		stop: func(ctx context.Context) error {
			if slew <= 0 {
				return errors.Join(fmt.Errorf("clock-jump: slew %v, want > 0", slew), setClocks(clocks, 0))
			}
			heal := time.Duration(float64(d.Abs()) / slew)
			begin := time.Now()
			t := time.NewTicker(tick)
			defer t.Stop()
			for {
				left := heal - time.Since(begin)
				if left <= 0 {
					return setClocks(clocks, 0)
				}
				if err := setClocks(clocks, time.Duration(float64(d)*float64(left)/float64(heal))); err != nil {
					return err
				}
				select {
				case <-ctx.Done():
					return errors.Join(ctx.Err(), setClocks(clocks, 0))
				case <-t.C:
				}
			}
		},
	}
}

// signed renders d with its sign: +3s, -250ms.
func signed(d time.Duration) string {
	if d >= 0 {
		return "+" + d.String()
	}
	return d.String()
}
