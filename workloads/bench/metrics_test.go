package bench

import (
	"testing"
	"time"
)

const u = time.Microsecond

// g is a grant with times in microseconds; waiting = requested.
func g(worker int, requested, granted, released int) grant {
	return grant{worker: worker, requested: time.Duration(requested) * u, waiting: time.Duration(requested) * u,
		granted: time.Duration(granted) * u, released: time.Duration(released) * u}
}

func TestAnalyzeOwnerChangesAndHandoffs(t *testing.T) {
	log := []grant{
		g(0, 0, 10, 100),       // first grant: no previous holder
		g(0, 110, 120, 200),    // same owner again: no change
		g(1, 50, 300, 400),     // asked at 50 < 200: hand-off of 100 µs
		g(0, 250, 900, 950),    // asked at 250 < 400: hand-off of 500 µs
		g(1, 1000, 1010, 1100), // asked at 1000 > 950: owner change, not a hand-off
	}
	c := analyze(2, log, nil, 2000*u)
	if c.grants != 5 || c.ownerChanges != 3 {
		t.Fatalf("grants %d, owner changes %d; want 5, 3", c.grants, c.ownerChanges)
	}
	share, ok := c.ownerChangeShare()
	if !ok || share != 0.75 {
		t.Errorf("owner-change share = %v, %v; want 0.75", share, ok)
	}
	if n := c.handoffs.TotalCount(); n != 2 {
		t.Fatalf("hand-offs = %d, want 2", n)
	}
	if lo, hi := c.handoffs.Min(), c.handoffs.Max(); lo != 100 || hi < 500 || hi > 505 {
		t.Errorf("hand-off range = %d..%d µs, want 100..500", lo, hi)
	}
	if c.grantsBy[0] != 3 || c.grantsBy[1] != 2 {
		t.Errorf("grants by worker = %v, want [3 2]", c.grantsBy)
	}
	// worker 1 waited 250 µs and 10 µs; worker 0 10, 10 and 650 µs.
	if m := c.waits[1].Max(); m < 250 || m > 252 {
		t.Errorf("worker 1 max wait = %d µs, want 250", m)
	}
	if m := c.waits[0].Max(); m < 650 || m > 656 {
		t.Errorf("worker 0 max wait = %d µs, want 650", m)
	}
}

func TestAnalyzeOpenRequestsCountTheirWait(t *testing.T) {
	log := []grant{g(0, 0, 5, 10), g(0, 20, 25, 30)}
	open := []request{{worker: 1, requested: 1 * u, waiting: 1 * u}}
	c := analyze(2, log, open, 10_000*u)
	if c.grantsBy[1] != 0 {
		t.Fatalf("worker 1 grants = %d, want 0", c.grantsBy[1])
	}
	if m := c.waits[1].Max(); m < 9999 || m > 10_100 {
		t.Errorf("starved worker's wait = %d µs, want about 9999 (censored at the window's end)", m)
	}
	if c.ownerChanges != 0 || c.handoffs.TotalCount() != 0 {
		t.Errorf("owner changes %d, hand-offs %d; want 0, 0", c.ownerChanges, c.handoffs.TotalCount())
	}
	// Worker 1 waited from 1 µs; the second grant (asked at 20) overtook it,
	// the first (asked at 0, before worker 1 asked) did not.
	if c.overtakes != 1 {
		t.Errorf("overtakes = %d, want 1", c.overtakes)
	}
	if _, ok := (contention{grants: 1}).ownerChangeShare(); ok {
		t.Error("owner-change share of one grant should be undefined")
	}
}

func TestOvertakes(t *testing.T) {
	w := func(worker int, waiting, requested int) grant {
		x := g(worker, requested, 0, 0)
		x.waiting = time.Duration(waiting) * u
		if waiting < 0 {
			x.waiting = notWaiting
		}
		return x
	}
	for _, tc := range []struct {
		name string
		log  []grant
		open []request
		want int64
	}{
		{"empty", nil, nil, 0},
		{"fifo", []grant{w(0, 0, 0), w(1, 1, 1), w(2, 2, 2), w(0, 3, 3)}, nil, 0},
		{"one jump", []grant{w(0, 0, 0), w(2, 5, 5), w(1, 1, 1)}, nil, 1},
		{"two jump one waiter", []grant{w(2, 5, 5), w(3, 6, 6), w(1, 1, 1)}, nil, 2},
		// Enqueued at 4, after 2 asked at 3: 2 is not an overtake (it asked
		// before 1 was surely waiting).
		{"race is not an overtake", []grant{w(2, 3, 3), w(1, 4, 0)}, nil, 0},
		// Granted at once (never waiting): nobody can overtake it.
		{"never waiting", []grant{w(2, 5, 5), w(1, -1, 1)}, nil, 0},
		{"open waiter overtaken", []grant{w(0, 0, 0), w(2, 9, 9)}, []request{{worker: 1, requested: 1 * u, waiting: 1 * u}}, 1},
		{"open never-waiting", []grant{w(2, 9, 9)}, []request{{worker: 1, requested: 1 * u, waiting: notWaiting}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := overtakes(tc.log, tc.open); got != tc.want {
				t.Errorf("overtakes = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{5, 1, 3}
	if m := median(xs); m != 3 {
		t.Errorf("median = %v, want 3", m)
	}
	if xs[0] != 5 {
		t.Error("median sorted its input")
	}
	if m := median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("median = %v, want 2.5", m)
	}
	if m := median(nil); m != 0 {
		t.Errorf("median(nil) = %v, want 0", m)
	}
}

func TestFormat(t *testing.T) {
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", 1234567.4: "1,234,567", -1500: "-1,500"} {
		if got := count(in); got != want {
			t.Errorf("count(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[time.Duration]string{0: "0", 61 * u: "0.061 ms", 1500 * u: "1.50 ms", 151 * time.Millisecond: "151 ms", 12 * time.Second: "12.0 s"} {
		if got := ms(in); got != want {
			t.Errorf("ms(%v) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{0: "0%", 0.004: "0.40%", 0.05: "5.0%", 0.5: "50%"} {
		if got := pct(in); got != want {
			t.Errorf("pct(%v) = %q, want %q", in, got, want)
		}
	}
}
