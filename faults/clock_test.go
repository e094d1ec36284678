package faults

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clockProbe prints, from one process: CLOCK_MONOTONIC, CLOCK_REALTIME,
// CLOCK_REALTIME_COARSE, gettimeofday and time(), in seconds.
const clockProbe = `
import ctypes, time
libc = ctypes.CDLL(None)
COARSE = 5  # CLOCK_REALTIME_COARSE on Linux
class TV(ctypes.Structure):
    _fields_ = [("s", ctypes.c_long), ("us", ctypes.c_long)]
tv = TV()
libc.gettimeofday(ctypes.byref(tv), None)
libc.time.restype = ctypes.c_long
print(time.clock_gettime(time.CLOCK_MONOTONIC), time.clock_gettime(time.CLOCK_REALTIME),
      time.clock_gettime(COARSE), tv.s + tv.us / 1e6, libc.time(None))
`

// probe runs clockProbe with env added and returns its five readings.
func probe(t *testing.T, env []string) [5]float64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "python3", "-c", clockProbe)
	cmd.Env = append(cmd.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("clock probe: %v\n%s", err, out)
	}
	var r [5]float64
	fields := strings.Fields(string(out))
	if len(fields) != len(r) {
		t.Fatalf("clock probe printed %q", out)
	}
	for i, f := range fields {
		if r[i], err = strconv.ParseFloat(f, 64); err != nil {
			t.Fatalf("clock probe printed %q: %v", out, err)
		}
	}
	return r
}

// The shim moves every wall-clock call by the offset, follows a change at
// once, and leaves CLOCK_MONOTONIC alone; offset 0 is the real time.
func TestClockShimOffsets(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 (make deps) to probe the clocks")
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	check := func(offset time.Duration) {
		t.Helper()
		c.Set(offset)
		before := probe(t, nil)
		got := probe(t, c.Env())
		after := probe(t, nil)
		if got[0] < before[0] || got[0] > after[0] {
			t.Errorf("offset %v: CLOCK_MONOTONIC %.3f outside [%.3f, %.3f] of unshimmed runs", offset, got[0], before[0], after[0])
		}
		names := []string{"", "CLOCK_REALTIME", "CLOCK_REALTIME_COARSE", "gettimeofday", "time()"}
		for i := 1; i < len(got); i++ {
			lo, hi := before[i]+offset.Seconds()-1.1, after[i]+offset.Seconds()+1.1 // time() and COARSE truncate
			if got[i] < lo || got[i] > hi {
				t.Errorf("offset %v: %s = %.3f, want within [%.3f, %.3f]", offset, names[i], got[i], lo, hi)
			}
		}
	}
	check(0)
	check(time.Hour)
	check(-90 * time.Second)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if c.Offset() != 0 {
		t.Errorf("closed clock offset %v, want 0", c.Offset())
	}
	c.Set(time.Second) // a no-op on a closed clock, not a fault
}

// Each clock fault moves its clocks while its window lasts and the
// nemesis heals them when the window ends (also when the run is cancelled
// in the middle of one).
func TestClockFaultsHeal(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	a, err := NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	clocks := []Offsetter{a, b}
	cases := []struct {
		f    Fault
		seen func() bool // polled while the fault is on
	}{
		{ClockJump(clocks, "both", 5*time.Second), func() bool { return a.Offset() == 5*time.Second && b.Offset() == 5*time.Second }},
		{ClockSkew(clocks, "both", []time.Duration{-time.Second, time.Second}), func() bool { return a.Offset() == -time.Second && b.Offset() == time.Second }},
		{ClockStrobe(clocks, "both", -time.Second, time.Second, time.Millisecond), func() bool { return a.Offset() == time.Second }},
		{ClockDrift(clocks, "both", 10, time.Millisecond), func() bool { return a.Offset() > 100*time.Millisecond }},
		{ClockJumpSlewed(clocks, "both", -50*time.Millisecond, 1), func() bool { return a.Offset() == -50*time.Millisecond }},
	}
	for _, tc := range cases {
		var windows []Window
		runCtx, stopRun := context.WithCancel(ctx)
		n := &Nemesis{Faults: []Fault{tc.f}, Schedule: Schedule{{Duration: time.Hour}}, Record: func(w Window) { windows = append(windows, w) }}
		errc := make(chan error, 1)
		go func() { errc <- n.Run(runCtx) }()
		for !tc.seen() {
			if ctx.Err() != nil {
				t.Fatalf("%s: clocks at %v, %v: fault never seen", tc.f.Name(), a.Offset(), b.Offset())
			}
			time.Sleep(time.Millisecond)
		}
		stopRun()
		if err := <-errc; err != nil {
			t.Fatalf("%s: %v", tc.f.Name(), err)
		}
		if a.Offset() != 0 || b.Offset() != 0 {
			t.Errorf("%s: clocks at %v, %v after the nemesis ended, want 0", tc.f.Name(), a.Offset(), b.Offset())
		}
		if len(windows) != 1 || windows[0].Name != tc.f.Name() || windows[0].Err != "" {
			t.Errorf("%s: windows %+v", tc.f.Name(), windows)
		}
	}
}

// A slewed heal moves the clock back gradually and never past real time.
func TestClockJumpSlewedHeal(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c, err := NewClock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	f := ClockJumpSlewed([]Offsetter{c}, "c", -200*time.Millisecond, 1)
	if err := f.Start(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	begin := time.Now()
	go func() { done <- f.Stop(ctx) }()
	var seen []time.Duration
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(begin); took < 190*time.Millisecond {
				t.Errorf("heal of 200 ms at 1 s/s took %v", took)
			}
			if c.Offset() != 0 {
				t.Errorf("offset %v after the heal", c.Offset())
			}
			if !slices.IsSorted(seen) || len(seen) < 3 || seen[len(seen)-1] > 0 {
				t.Errorf("offsets seen during the heal: %v, want a few, rising to no more than 0", seen)
			}
			return
		default:
			if len(seen) == 0 || seen[len(seen)-1] != c.Offset() {
				seen = append(seen, c.Offset())
			}
			time.Sleep(time.Millisecond)
		}
	}
}
