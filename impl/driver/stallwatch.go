package driver

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Stall watch of a driver written in Go (Serve): a goroutine asks to wake
// every stallTick and notes each wake-up more than stallThreshold late (a
// starved CPU, a GC pause, a SIGSTOP) as a stall, in CLOCK_MONOTONIC
// nanoseconds; the next reply carries the stalls noted since the one
// before (Reply.Stalls), as the protocol's "Stalls" section asks.
const (
	stallTick      = 5 * time.Millisecond
	stallThreshold = 40 * time.Millisecond
)

// stallWatch notes the process's own stalls until its context ends; run
// returns then.
type stallWatch struct {
	mu     sync.Mutex
	stalls [][2]int64
}

// run watches until ctx ends.
func (s *stallWatch) run(ctx context.Context) {
	t := time.NewTicker(stallTick)
	defer t.Stop()
	last := monoNow()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := monoNow()
		if late := now - last - int64(stallTick); late > int64(stallThreshold) {
			s.mu.Lock()
			s.stalls = append(s.stalls, [2]int64{last + int64(stallTick), now})
			s.mu.Unlock()
		}
		last = now
	}
}

// take returns the stalls noted since the last take.
func (s *stallWatch) take() [][2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.stalls
	s.stalls = nil
	return out
}

// monoNow is CLOCK_MONOTONIC in nanoseconds (0 if it cannot be read).
func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return ts.Nano()
}
