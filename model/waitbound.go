package model

import (
	"fmt"
	"time"
)

// WaitBound is the liveness checker's bound on how long an acquire may
// wait (Options.MaxWait), in one encoding everywhere: a run config, a
// scenario, a plan file and the --max-wait flag.
//   - WaitDerived (0, the zero value): derived from the leases,
//     DefaultWaitLeases of waiting on a free lock outside faults;
//   - WaitOff (any value < 0): no bound;
//   - > 0: an acquire that overlapped no fault window and waited longer is
//     a violation.
//
// In JSON it is a number of nanoseconds; as a flag (flag.Value) it reads
// and prints "derived", "off" or a duration > 0.
type WaitBound time.Duration

// The bounds that are not a duration.
const (
	WaitDerived WaitBound = 0
	WaitOff     WaitBound = -1
)

// Off says no bound applies.
func (w WaitBound) Off() bool { return w < 0 }

// Derived says the bound is derived from the leases.
func (w WaitBound) Derived() bool { return w == 0 }

// Duration is the bound set (> 0), else 0.
func (w WaitBound) Duration() time.Duration { return max(time.Duration(w), 0) }

func (w WaitBound) String() string {
	switch {
	case w.Off():
		return "off"
	case w.Derived():
		return "derived"
	}
	return time.Duration(w).String()
}

// Set reads "derived", "off" or a duration > 0. A duration of 0 is an
// error naming both words: it would be read as one by some and the other
// by others.
func (w *WaitBound) Set(s string) error {
	switch s {
	case "derived":
		*w = WaitDerived
		return nil
	case "off":
		*w = WaitOff
		return nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		return fmt.Errorf("%q: want a duration > 0, \"derived\" or \"off\"", s)
	case d == 0:
		return fmt.Errorf("%q: say \"off\" for no bound, or \"derived\" for the bound derived from the leases", s)
	case d < 0:
		return fmt.Errorf("%q is negative: want a duration > 0, \"derived\" or \"off\"", s)
	}
	*w = WaitBound(d)
	return nil
}
