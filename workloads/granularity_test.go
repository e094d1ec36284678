package workloads

import (
	"testing"
	"time"
)

// TestLeaseGranularity: a lock that keeps leases in whole seconds gets
// plans whose leases are whole seconds, so an overrun's late unlock comes
// after the lease the lock really holds.
func TestLeaseGranularity(t *testing.T) {
	ph := &Phases{OverrunLease: Range{Min: 100 * time.Millisecond, Max: 250 * time.Millisecond}}
	p := Plan{Lease: 2345 * time.Millisecond, Phases: ph}
	got := p.withLeaseGranularity(time.Second)
	if got.Lease != 3*time.Second {
		t.Errorf("lease %v, want 3s", got.Lease)
	}
	if want := (Range{Min: time.Second, Max: time.Second}); got.Phases.OverrunLease != want {
		t.Errorf("overrun leases %v, want %v", got.Phases.OverrunLease, want)
	}
	if ph.OverrunLease.Min != 100*time.Millisecond {
		t.Error("the plan's phases were changed in place")
	}
	if w := (Plan{Lease: 0}).withLeaseGranularity(time.Second); w.Lease != 0 {
		t.Errorf("watchdog lease 0 became %v", w.Lease)
	}
	if same := p.withLeaseGranularity(0); same.Lease != p.Lease || same.Phases != ph {
		t.Error("granularity 0 changed the plan")
	}
	for _, tc := range []struct{ d, want time.Duration }{
		{time.Second, time.Second}, {1500 * time.Millisecond, 2 * time.Second}, {time.Nanosecond, time.Second},
	} {
		if got := roundUp(tc.d, time.Second); got != tc.want {
			t.Errorf("roundUp(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

// TestMaxWaitFollowsTheRoundedLease: client-crash's bound of two 1.5 s
// leases becomes two 2 s leases for a lock that keeps whole seconds, and
// is left alone when nothing is rounded.
func TestMaxWaitFollowsTheRoundedLease(t *testing.T) {
	for _, tc := range []struct{ wait, lease, g, want time.Duration }{
		{3 * time.Second, 1500 * time.Millisecond, time.Second, 4 * time.Second},
		{3 * time.Second, 1500 * time.Millisecond, 0, 3 * time.Second},
		{3 * time.Second, 2 * time.Second, time.Second, 3 * time.Second},
		{0, 1500 * time.Millisecond, time.Second, 0},
		{-1, 1500 * time.Millisecond, time.Second, -1},
	} {
		if got := scaleWithLease(tc.wait, tc.lease, tc.g); got != tc.want {
			t.Errorf("scaleWithLease(%v, %v, %v) = %v, want %v", tc.wait, tc.lease, tc.g, got, tc.want)
		}
	}
}
