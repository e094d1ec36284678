package driver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// ErrNoCycle is returned by Locker.Cycle for a driver without CapCycle.
var ErrNoCycle = errors.New("driver: no cycle capability")

// CycleResult is what a cycle request reports (see Locker.Cycle).
type CycleResult struct {
	// Count is how many grants the cycle had within its duration.
	Count int64
	// Grants are the cycle's holds in order (when asked for), on this
	// process's clock.
	Grants []CycleGrant
	// Open is when the last lock was requested if it was still waiting
	// when the cycle ended (zero otherwise).
	Open time.Time
}

// CycleGrant is one hold of a cycle.
type CycleGrant struct {
	Requested, Granted, Released time.Time
}

// CanCycle reports whether the handle's driver runs cycle requests
// (CapCycle among the Maker's capabilities).
func (l *Locker) CanCycle() bool { return slices.Contains(l.m.opts.Capabilities, CapCycle) }

// cycleGrace is how far past d a cycle's reply may come: the last lock and
// unlock in flight, the pipe, the JSON of the grant log.
const cycleGrace = 5 * time.Second

// Cycle asks the driver to lock and unlock the lock by itself for d (each
// lock waiting at most until d ends) and returns its count and, with log,
// every grant's times. It measures the lock without a protocol round trip
// per call. The reply is due within d plus a grace, whatever ctx's deadline.
func (l *Locker) Cycle(ctx context.Context, d, lease time.Duration, log bool) (CycleResult, error) {
	if !l.CanCycle() {
		return CycleResult{}, ErrNoCycle
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d+cycleGrace)
	defer cancel()
	rep, err := l.do(ctx, Request{Op: OpCycle, DurationMS: millis(d), LeaseMS: millis(lease), Log: log})
	if err != nil {
		return CycleResult{}, err
	}
	if rep.Status != StatusOK {
		return CycleResult{}, fmt.Errorf("driver %s: cycle: %s", l.m.opts.name(), rep.Status)
	}
	clock, err := newMonoClock()
	if err != nil {
		return CycleResult{}, err
	}
	res := CycleResult{Count: int64(rep.Count)}
	for _, g := range rep.Grants {
		res.Grants = append(res.Grants, CycleGrant{Requested: clock.at(g[0]), Granted: clock.at(g[1]), Released: clock.at(g[2])})
	}
	if rep.Open != 0 {
		res.Open = clock.at(rep.Open)
	}
	return res, nil
}

// monoClock maps CLOCK_MONOTONIC readings (a driver's, e.g. Java's
// System.nanoTime on Linux) to time.Time values with monotonic readings.
type monoClock struct {
	now  time.Time
	mono int64
}

func newMonoClock() (monoClock, error) {
	var ts unix.Timespec
	now := time.Now()
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return monoClock{}, fmt.Errorf("driver: read CLOCK_MONOTONIC: %w", err)
	}
	return monoClock{now: now, mono: ts.Nano()}, nil
}

func (c monoClock) at(ns int64) time.Time { return c.now.Add(time.Duration(ns - c.mono)) }
