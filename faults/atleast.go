package faults

import (
	"context"
	"sync"
	"time"
)

// AtLeast returns f made to last at least d once its effect began: Stop
// first waits until d has passed since f's Began (or since Start returned,
// for a fault that does not say when it began), then heals. A fault that
// waits for its target (a pause of the process that holds, a stall at the
// next grant) may begin late in its window; made to last, it still lasts
// as long as its scenario says (past a lease), and the window the nemesis
// records runs to its real end. The wait is bounded by Stop's ctx; a Stop
// without a Start that took effect does not wait.
func AtLeast(f Fault, d time.Duration) Fault {
	return &atLeast{Fault: f, d: d}
}

type atLeast struct {
	Fault
	d       time.Duration
	mu      sync.Mutex
	started time.Time // when Start returned with the fault in effect (zero: it did not)
}

// Began forwards f's Began, so the nemesis opens the window when the
// effect began.
func (a *atLeast) Began() time.Time {
	if b, ok := a.Fault.(Beginner); ok {
		return b.Began()
	}
	return time.Time{}
}

func (a *atLeast) Start(ctx context.Context) error {
	err := a.Fault.Start(ctx)
	a.mu.Lock()
	a.started = time.Time{}
	if err == nil {
		a.started = time.Now()
	}
	a.mu.Unlock()
	return err
}

func (a *atLeast) Stop(ctx context.Context) error {
	a.mu.Lock()
	from := a.started
	a.started = time.Time{}
	a.mu.Unlock()
	if !from.IsZero() {
		if began := a.Began(); !began.IsZero() {
			from = began
		}
		t := time.NewTimer(time.Until(from.Add(a.d)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	return a.Fault.Stop(ctx)
}
