package workloads

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/impl"
)

// failingStarts is a Maker whose clients take long to start (impl.Readier):
// owner p0's start fails at once, the others' wait until their context
// ends, recording that they were cut short.
type failingStarts struct {
	mu        sync.Mutex
	cancelled []string
}

func (*failingStarts) Ready(context.Context) error { return nil }
func (*failingStarts) Close() error                { return nil }
func (f *failingStarts) NewLocker(name, owner string) impl.Locker {
	return &failingStart{f: f, owner: owner}
}

type failingStart struct {
	impl.Locker
	f     *failingStarts
	owner string
}

func (s *failingStart) Prepare(ctx context.Context) error {
	if s.owner == "p0" {
		return errors.New("the driver did not start")
	}
	<-ctx.Done()
	s.f.mu.Lock()
	s.f.cancelled = append(s.f.cancelled, s.owner)
	s.f.mu.Unlock()
	return ctx.Err()
}

// A start that fails ends the warm-up: the owners' starts still waiting are
// left to their first ops, so a driver that cannot start costs the run one
// start bound, not one per owner.
func TestWarmUpEndsAtAFailedStart(t *testing.T) {
	f := &failingStarts{}
	r := &runner{plan: Plan{Processes: 4, Locks: []string{"l"}}, makers: [][]impl.Maker{{f}}}
	done := make(chan struct{})
	go func() { r.warmUp(t.Context()); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the warm-up went on after a start failed")
	}
	if len(f.cancelled) != 3 {
		t.Fatalf("starts cut short: %v, want the 3 other owners'", f.cancelled)
	}
}
