package bench

import (
	"fmt"
	"io"
	"time"

	"github.com/redis/go-redis/v9"
)

// Config chooses the matrix and its lengths. The zero value is the full mode;
// Quick picks shorter defaults. Any field set explicitly wins over the mode's
// default.
type Config struct {
	// Quick selects the quick mode: QuickRounds rounds of QuickDuration per
	// cell (under a minute for the default subjects). Otherwise the full mode:
	// FullRounds rounds of FullDuration (a few minutes).
	Quick bool
	// Rounds is the number of interleaved rounds; each figure is the median
	// (rates) or the pool (latencies, counts) over rounds.
	Rounds int
	// Duration is the measuring window of one cell of one subject in one
	// round (set-up and warm-up are outside it).
	Duration time.Duration
	// Uncontended lists the worker counts of the uncontended cells
	// (default 1, 8, 32). Contended lists those of the contended cells
	// (default 2, 8, 32). An explicitly empty, non-nil list skips the kind.
	Uncontended, Contended []int
	// Threads makes each cell's N workers N threads of one client process,
	// as an application runs one client with many threads: Go locks are N
	// goroutines on one Maker and go-redis client (a connection each), an
	// external subject is one driver process hosting N owners, each running
	// the driver-side cycle on a thread of its own. A subject whose driver
	// hosts one owner per process has no rows above 1 thread (a note says
	// so). The ceiling then shares one client too. false (the default):
	// each worker is a client process of its own.
	Threads bool
	// Wire measures every subject twice in the same interleaved rounds:
	// direct, as always, and as its twin named with WireSuffix, each
	// client's connection through a faults.Wire of its own (a driver
	// process's too: it dials its client's address) whose every event is
	// recorded as a run records its wire trace (kept, and encoded as JSON
	// Lines to a file). The report then divides the twins' cycles/s
	// (WireRatios): what the wire trace costs. The ceiling stays direct.
	Wire bool
	// Lease is the lease every Lock asks for. 0 (the default) asks for a
	// watchdog-renewed lock, the way Redisson's lock() is used; the peers'
	// adapters then extend their lease every third of it.
	Lease time.Duration
	// Redis reaches the server to measure on. nil (the default) starts a
	// redis-server of our own (persistence off) and stops it at the end.
	// The options are copied for every worker; keep MaxRetries -1.
	Redis *redis.Options
	// Progress, when not nil, receives one line per measured cell.
	Progress io.Writer
}

// Mode defaults.
const (
	QuickRounds   = 2
	QuickDuration = 300 * time.Millisecond
	FullRounds    = 5
	FullDuration  = time.Second
)

// unlockTimeout bounds each Unlock and each warm-up call.
const unlockTimeout = 5 * time.Second

func (c Config) withDefaults() (Config, error) {
	if c.Rounds == 0 {
		c.Rounds = FullRounds
		if c.Quick {
			c.Rounds = QuickRounds
		}
	}
	if c.Duration == 0 {
		c.Duration = FullDuration
		if c.Quick {
			c.Duration = QuickDuration
		}
	}
	if c.Uncontended == nil {
		c.Uncontended = []int{1, 8, 32}
	}
	if c.Contended == nil {
		c.Contended = []int{2, 8, 32}
	}
	switch {
	case c.Rounds < 0:
		return c, fmt.Errorf("bench: rounds = %d, want > 0", c.Rounds)
	case c.Duration < 0:
		return c, fmt.Errorf("bench: duration = %v, want > 0", c.Duration)
	case c.Lease < 0:
		return c, fmt.Errorf("bench: lease = %v, want >= 0 (0: watchdog)", c.Lease)
	}
	for _, n := range c.Uncontended {
		if n < 1 {
			return c, fmt.Errorf("bench: uncontended workers = %d, want >= 1", n)
		}
	}
	for _, n := range c.Contended {
		if n < 2 {
			return c, fmt.Errorf("bench: contended workers = %d, want >= 2", n)
		}
	}
	return c, nil
}

// mode names the configuration in reports.
func (c Config) mode() string {
	if c.Quick {
		return "quick"
	}
	return "full"
}
