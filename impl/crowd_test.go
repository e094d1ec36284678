package impl

import (
	"testing"
	"time"
)

// A handle polls first only after calls that waited and lost wake-ups, and
// never longer than crowdMaxPoll; a nil crowd (the fair lock) never polls.
func TestCrowdPlan(t *testing.T) {
	var none *crowd
	if at, p := none.plan(); at != 0 || p != 0 {
		t.Fatalf("nil crowd: plan %v, %v; want 0, 0", at, p)
	}
	none.done(time.Second, 10) // no effect, no panic
	var c crowd
	if at, _ := c.plan(); at != 0 {
		t.Fatalf("fresh crowd polls until %v; want 0", at)
	}
	for range 20 {
		c.done(8*time.Millisecond, 6)
	}
	at, p := c.plan()
	if at < 6*time.Millisecond || at > 8*time.Millisecond || p != at/2 {
		t.Fatalf("crowded at 8 ms waits: plan %v, %v; want about 7 ms and half of it", at, p)
	}
	for range 20 {
		c.done(time.Second, 6)
	}
	if at, _ := c.plan(); at != crowdMaxPoll {
		t.Fatalf("after long waits: polls until %v; want crowdMaxPoll %v", at, crowdMaxPoll)
	}
	for range 20 {
		c.done(time.Second, 0)
	}
	if at, _ := c.plan(); at != 0 {
		t.Fatalf("no lost wake-ups lately: polls until %v; want 0", at)
	}
}
