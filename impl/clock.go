package impl

import (
	"sync/atomic"
	"time"
)

// Clock tells the time a lock's lease arithmetic runs on: the current time
// the fair lock passes to its scripts (queue deadlines are computed from
// it, in Redis, against other clients' clocks), a RedLock's validity, and
// the watchdog's judgement that a hold's lease ran out. Timeouts and
// sleeps stay on Go's monotonic clock whatever the Clock says, as they do
// in a real process whose wall clock is wrong.
type Clock interface {
	// Now returns the current time. Differences of two readings of one
	// Clock are its idea of elapsed time.
	Now() time.Time
}

// RealClock is the system's clock (time.Now), every lock's default.
var RealClock Clock = realClock{}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// OffsetClock is the real clock moved by an offset that can change at any
// time (Set), the in-process counterpart of the clock shim: a skewed
// client is a fixed offset, a jump a change of it. The zero value is the
// real clock. It is safe for concurrent use.
type OffsetClock struct {
	offset atomic.Int64
}

// Set moves the clock to d from real time.
func (c *OffsetClock) Set(d time.Duration) { c.offset.Store(int64(d)) }

// Offset is the current offset.
func (c *OffsetClock) Offset() time.Duration { return time.Duration(c.offset.Load()) }

// Now returns the real time plus the offset.
func (c *OffsetClock) Now() time.Time { return time.Now().Add(c.Offset()) }

// WithClock sets the Clock of a Client's lease arithmetic (fair-lock script
// times and the watchdog's lease-lost judgement). Nil keeps RealClock.
func WithClock(c Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithRedlockClock sets the Clock a Redlock measures its validity with.
// Nil keeps RealClock.
func WithRedlockClock(c Clock) RedlockOption {
	return func(o *redlockOptions) {
		if c != nil {
			o.clock = c
		}
	}
}
