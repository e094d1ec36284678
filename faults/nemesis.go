package faults

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// HealthCheck reports whether Redis is serving; it must return within ctx.
type HealthCheck func(ctx context.Context) error

// Ping returns a HealthCheck that PINGs through rdb. Give it a client that
// reaches Redis directly, not through a Proxy, so that a proxy fault does not
// look like a sick Redis.
func Ping(rdb redis.Cmdable) HealthCheck {
	return func(ctx context.Context) error { return rdb.Ping(ctx).Err() }
}

// Nemesis runs a Schedule of faults, records each window and heals
// everything at the end. Set the fields, then call Run once; a Nemesis is not
// reusable.
type Nemesis struct {
	// Faults are the faults the schedule's steps refer to by index.
	Faults []Fault
	// Schedule is the plan (fixed, or from RandomSchedule with the run's
	// seed). It must pass Schedule.Validate(len(Faults)).
	Schedule Schedule
	// Record, if set, is called once per window, after the fault was stopped
	// (also for a window whose Start failed: the fault may have been partly
	// in effect). It is called from Run's goroutine.
	Record func(Window)
	// Started, if set, is called right after a fault's Start returned
	// successfully, with the window's Name, Target and Start (End is zero),
	// so that a history written as the run goes shows a fault that a crash
	// cut short. It is called from Run's goroutine.
	Started func(Window)
	// Health, if set, must pass before each fault starts and again after it
	// stops. Before a fault it is retried until it passes or HealthTimeout
	// runs out (then Run stops with an error: faults on a sick Redis prove
	// nothing); after a fault it must pass within HealthTimeout too (then Run
	// stops with an error: the fault did not heal).
	Health HealthCheck
	// HealthTimeout bounds each health wait. Default 10 s.
	HealthTimeout time.Duration
	// StopTimeout bounds each Fault.Stop (which gets a fresh context, so that
	// healing works after Run's ctx is cancelled). Default 15 s (a restart
	// with a large AOF can be slow).
	StopTimeout time.Duration
}

// ErrUnhealthy is wrapped by Run's error when Redis failed a health check.
var ErrUnhealthy = errors.New("redis unhealthy")

// Run executes the schedule, timing steps from the moment Run is called. It
// blocks until every step is done or ctx ends, whichever comes first; on a
// fault or health error it stops early. Whatever happens (ctx cancelled,
// e.g. on Ctrl-C, an error, a panic in a fault), every fault it started is
// stopped before Run returns, each with a fresh context bounded by
// StopTimeout, and its window recorded.
//
// Run returns nil when the schedule ran out or ctx ended, and otherwise the
// errors of Start, Stop and the health checks, joined. A non-nil error means
// the run did not get the faults it asked for: treat the run as invalid.
func (n *Nemesis) Run(ctx context.Context) error {
	if err := n.Schedule.Validate(len(n.Faults)); err != nil {
		return fmt.Errorf("nemesis: %w", err)
	}
	healthTimeout := orDefault(n.HealthTimeout, 10*time.Second)
	origin := time.Now()
	for _, st := range n.Schedule {
		if !sleepUntil(ctx, origin.Add(st.At)) {
			return nil
		}
		if err := n.waitHealthy(ctx, healthTimeout); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("nemesis: before %s: %w", describe(n.Faults[st.Fault]), err)
		}
		if err := n.window(ctx, n.Faults[st.Fault], origin.Add(st.At+st.Duration)); err != nil {
			return err
		}
		// Checked with a fresh context: a cancelled run still reports whether
		// the last fault healed.
		hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), healthTimeout)
		err := n.waitHealthy(hctx, healthTimeout)
		cancel()
		if err != nil {
			return fmt.Errorf("nemesis: after %s: %w", describe(n.Faults[st.Fault]), err)
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	return nil
}

// window starts f, waits until end (or ctx's end) and stops it with a fresh
// bounded context, whatever happens in between (the deferred stop also runs
// on a panic). It records the window and returns Start's and Stop's errors.
func (n *Nemesis) window(ctx context.Context, f Fault, end time.Time) (err error) {
	w := Window{Name: f.Name(), Target: f.Target(), Start: time.Now()}
	var startErr error
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orDefault(n.StopTimeout, 15*time.Second))
		stopErr := f.Stop(sctx)
		cancel()
		if errors.Is(startErr, ErrNotReached) && ctx.Err() != nil && stopErr == nil {
			err = nil // the run ended before the fault found its target: no window
			return
		}
		if endedWhileStarting(ctx, startErr) && stopErr == nil {
			// The run ended while the fault was starting (a CLIENT KILL cut
			// off by the run's end): it may have acted in part, so its
			// window is kept, but nothing failed.
			startErr = nil
		}
		w.End = time.Now()
		if stopErr != nil {
			stopErr = fmt.Errorf("nemesis: stop %s: %w", describe(f), stopErr)
		}
		err = errors.Join(startErr, stopErr)
		if err != nil {
			w.Err = err.Error()
		}
		if n.Record != nil {
			n.Record(w)
		}
	}()
	startErr = f.Start(ctx)
	w.Target = f.Target() // a fault may choose its target as it starts
	if b, ok := f.(Beginner); ok && startErr == nil {
		if at := b.Began(); !at.IsZero() {
			w.Start = at // it took effect only now (a stall waited for its target)
		}
	}
	if startErr != nil {
		startErr = fmt.Errorf("nemesis: start %s: %w", describe(f), startErr)
		return
	}
	if n.Started != nil {
		n.Started(w)
	}
	sleepUntil(ctx, end)
	return
}

// endedWhileStarting reports whether err, a fault's Start's, is ctx's end
// (the run's), come while the fault was starting.
func endedWhileStarting(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// waitHealthy polls Health until it passes, ctx ends or timeout runs out.
func (n *Nemesis) waitHealthy(ctx context.Context, timeout time.Duration) error {
	if n.Health == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		err := n.Health(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %v (gave up after %v)", ErrUnhealthy, err, timeout)
		case <-t.C:
		}
	}
}

// sleepUntil waits until t or ctx's end and reports whether t was reached.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func describe(f Fault) string { return f.Name() + "(" + f.Target() + ")" }

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
