package impl

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestRenewalsConfigs: a renewal retries a failed renewal unless GiveUp,
// ends when the hold is gone, ends once lost with StopWhenLost, and goes
// on lost without it; Stop and Close end it, and Start after Close fails.
func TestRenewalsConfigs(t *testing.T) {
	refused := errors.New("refused")
	failing := func(n *atomic.Int32) func(context.Context) (bool, error) {
		return func(context.Context) (bool, error) { n.Add(1); return false, refused }
	}
	rs := NewRenewals(30 * time.Millisecond)
	defer rs.Close()
	lease := 30 * time.Millisecond
	var giveUp, retries atomic.Int32
	g, err := rs.Start(time.Now(), RenewalConfig{Lease: lease, GiveUp: true}, failing(&giveUp))
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rs.Start(time.Now(), RenewalConfig{Lease: lease}, failing(&retries))
	s, _ := rs.Start(time.Now(), RenewalConfig{Lease: lease, StopWhenLost: true}, failing(new(atomic.Int32)))
	gone, _ := rs.Start(time.Now(), RenewalConfig{Lease: lease}, func(context.Context) (bool, error) { return false, nil })
	for _, h := range []*Renewal{g, s, gone} {
		select {
		case <-h.Lost():
		case <-time.After(2 * time.Second):
			t.Fatal("a renewal that gave up, lost its lease or found its hold gone is not marked lost")
		}
	}
	time.Sleep(100 * time.Millisecond)
	if g.Alive() || s.Alive() || gone.Alive() {
		t.Errorf("alive: gave up %v, stop when lost %v, gone %v; want none", g.Alive(), s.Alive(), gone.Alive())
	}
	if n := giveUp.Load(); n != 1 {
		t.Errorf("GiveUp renewed %d times, want 1", n)
	}
	if !r.Alive() || retries.Load() < 3 {
		t.Errorf("without GiveUp: alive %v after %d renewals, want alive and retrying", r.Alive(), retries.Load())
	}
	r.Stop()
	r.Stop()
	n := retries.Load()
	time.Sleep(50 * time.Millisecond)
	if r.Alive() || retries.Load() != n {
		t.Errorf("after Stop: alive %v, renewals %d then %d", r.Alive(), n, retries.Load())
	}
	rs.Close()
	if _, err := rs.Start(time.Now(), RenewalConfig{Lease: lease}, failing(new(atomic.Int32))); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}
	var nilR *Renewal
	nilR.Stop()
	if nilR.Alive() || nilR.Lost() != nil {
		t.Error("a nil Renewal is alive or has a lost channel")
	}
}
