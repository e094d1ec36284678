package faults

import (
	"context"
	"errors"
	"fmt"
)

// Clients is what the runner exposes so that faults can act on the lock
// clients it drives. faults never sees a lock: the runner implements this
// interface on top of its workers. A target is a worker's stable name (e.g.
// "c3"), as listed by Targets.
//
// What an implementation must do:
//
// Stall(ctx, target) makes target freeze the way a GC pause or a VM stall
// freezes a whole process: the worker stops between two statements *while it
// holds the lock* (inside its critical section, after a successful acquire
// and before the protected write or the release), and the lock's watchdog /
// renewal goroutine for that handle stops renewing too (it must be paused by
// the same mechanism, not left running, or the stall would not outlive the
// lease). Stall blocks until the target is frozen in that state, or until ctx
// ends (then it returns ctx's error and must leave the target running). If
// the target is already stalled, Stall returns nil.
//
// Unstall(ctx, target) lets a stalled target continue exactly where it
// stopped: the worker goes on with its critical section (a write with its
// now possibly stale fencing token, then Unlock), and the watchdog resumes.
// Unstall of a target that is not stalled returns nil. It must not block
// longer than ctx allows.
//
// Crash(ctx, target) kills target as a process crash would: the worker stops
// at once, never calls Unlock, and its watchdog stops with it (so the lease
// runs out on its own). Operations it had in flight end as indeterminate
// (info) in the history. The runner then replaces the worker with a fresh
// client under a new owner identity (Jepsen's "crashed processes get new
// ids"); the replacement may start right away. Crash returns once the old
// worker and its watchdog have stopped, or when ctx ends.
type Clients interface {
	// Targets lists the names of the clients faults may act on.
	Targets() []string
	// Stall freezes target inside its critical section (see Clients).
	Stall(ctx context.Context, target string) error
	// Unstall lets a stalled target continue. Idempotent.
	Unstall(ctx context.Context, target string) error
	// Crash kills target without unlocking (see Clients).
	Crash(ctx context.Context, target string) error
}

// Stall returns a fault that stalls target inside its critical section from
// Start to Stop (Clients.Stall / Clients.Unstall). A Stall held longer than
// the lock's lease lets another client acquire the lock while the stalled one
// still believes it holds it: the classic unsafe scenario.
func Stall(c Clients, target string) Fault {
	var b beganAt
	return &fault{
		name: "client-stall", target: target, beganOf: b.began,
		start: func(ctx context.Context) error {
			if err := c.Stall(ctx, target); err != nil {
				return fmt.Errorf("stall client %s: %w", target, err)
			}
			b.mark() // the window opens once the target froze
			return nil
		},
		stop: func(ctx context.Context) error {
			if err := c.Unstall(ctx, target); err != nil {
				return fmt.Errorf("unstall client %s: %w", target, err)
			}
			return nil
		},
	}
}

// Crash returns a fault that crashes target at Start (Clients.Crash). Stop
// does nothing: a crash cannot be undone, the runner has already replaced
// the client. The recorded window runs from the crash to Stop.
func Crash(c Clients, target string) Fault {
	return &fault{
		name: "client-crash", target: target,
		start: func(ctx context.Context) error {
			if err := c.Crash(ctx, target); err != nil {
				return fmt.Errorf("crash client %s: %w", target, err)
			}
			return nil
		},
		stop: noop,
	}
}

// ErrNotReached is what a fault's Start returns, wrapped with ctx's error,
// when ctx ended before the fault's target reached the state it waits for
// (a stall waits for its target to hold a lock): nothing happened, and a
// nemesis whose run ended meanwhile records no window for it and reports
// no failure.
var ErrNotReached = errors.New("faults: the target never reached the fault")

// Where a client pause lands (ClientPauser.PauseClient).
const (
	// PauseAimHold: while the target holds a lock, at a moment drawn from
	// the run's seed (or at a reply of Redis to it before that).
	PauseAimHold = "hold"
	// PauseAimRelease: inside the target's release, at the reply to its
	// first command: between an unlock's commands, when it has several.
	PauseAimRelease = "release"
)

// ClientPauser is implemented by Clients whose targets run their lock
// clients in processes of their own, which a pause can stop wherever
// their threads are. PauseClient pauses target, while it holds a lock,
// where aim says ("" : drawn from the run's seed), and returns once the
// process is stopped (or ctx ends); Unstall continues it.
type ClientPauser interface {
	PauseClient(ctx context.Context, target, aim string) error
}

// ClientPause returns a fault that pauses target's process from Start to
// Stop where aim says (ClientPauser; "process-pause"); with Clients that
// cannot pause a process it stalls target (Clients.Stall).
func ClientPause(c Clients, target, aim string) Fault {
	var b beganAt
	return &fault{
		name: "process-pause", target: target, beganOf: b.began,
		start: func(ctx context.Context) error {
			defer b.mark() // the window opens once the process stopped
			var err error
			if p, ok := c.(ClientPauser); ok {
				err = p.PauseClient(ctx, target, aim)
			} else {
				err = c.Stall(ctx, target)
			}
			if err != nil {
				return fmt.Errorf("pause client %s: %w", target, err)
			}
			return nil
		},
		stop: func(ctx context.Context) error {
			if err := c.Unstall(ctx, target); err != nil {
				return fmt.Errorf("unpause client %s: %w", target, err)
			}
			return nil
		},
	}
}
