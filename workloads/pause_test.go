package workloads

import (
	"testing"
	"time"
)

// Where pauses land is the seed's: the same seed draws the same aims and
// fractions, and a drawn pause lands within its span (the section and its
// first third of a lease, or a millisecond into a release).
func TestPauseDraws(t *testing.T) {
	a, b := newPauser(7), newPauser(7)
	aims := map[string]int{}
	for range 200 {
		aim, frac := a.draw("")
		aim2, frac2 := b.draw("")
		if aim != aim2 || frac != frac2 {
			t.Fatalf("seed 7 drew %s/%v and %s/%v", aim, frac, aim2, frac2)
		}
		if frac < 0 || frac >= 1 {
			t.Fatalf("fraction %v out of [0, 1)", frac)
		}
		aims[aim]++
	}
	if aims[aimHold] < 50 || aims[aimRelease] < 50 {
		t.Errorf("200 draws gave %v", aims)
	}
	if aim, _ := a.draw(aimRelease); aim != aimRelease {
		t.Errorf("draw(release) aimed at %s", aim)
	}
	lease := 1500 * time.Millisecond
	for _, c := range []struct {
		aim       string
		frac      float64
		hold, max time.Duration
	}{
		{aimHold, 0.99, 20 * time.Millisecond, 20 * time.Millisecond},
		{aimHold, 0.99, 2 * time.Second, lease / 3},
		{aimHold, 0.5, 0, time.Millisecond},
		{aimRelease, 0.99, 2 * time.Second, time.Millisecond},
	} {
		if d := pauseDelay(c.aim, c.frac, c.hold, lease); d < 0 || d >= c.max {
			t.Errorf("pauseDelay(%s, %v, hold %v) = %v, want in [0, %v)", c.aim, c.frac, c.hold, d, c.max)
		}
	}
}
