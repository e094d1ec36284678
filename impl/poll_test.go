package impl

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPollLock: the polling locks' loop grants on the attempt that is
// granted, returns the last refusal when it may not wait or its deadline
// passed, wraps ErrNotObtained, ctx.Err() and the refusal when ctx ends,
// returns a fatal error as it is, and pauses at most an attempt's cap.
func TestPollLock(t *testing.T) {
	refused := errors.New("no quorum")
	fatal := errors.New("lost the connection")
	hour := func() time.Duration { return time.Hour }
	n := 0
	grantThird := func() pollAttempt {
		n++
		return pollAttempt{granted: n == 3, refusal: refused, cap: time.Millisecond}
	}
	if ok, err := pollLock(context.Background(), "l", true, time.Time{}, hour, grantThird); !ok || err != nil || n != 3 {
		t.Errorf("capped pauses: ok %v, err %v after %d attempts, want granted on the 3rd", ok, err, n)
	}
	refuse := func() pollAttempt { n++; return pollAttempt{refusal: refused} }
	n = 0
	if ok, err := pollLock(context.Background(), "l", false, time.Time{}, hour, refuse); ok || err != refused || n != 1 {
		t.Errorf("no wait: ok %v, err %v after %d attempts, want the refusal after one", ok, err, n)
	}
	n = 0
	short := func() time.Duration { return time.Millisecond }
	ok, err := pollLock(context.Background(), "l", true, time.Now().Add(20*time.Millisecond), short, refuse)
	if ok || err != refused || n < 2 {
		t.Errorf("deadline: ok %v, err %v after %d attempts, want the refusal after several", ok, err, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	ok, err = pollLock(ctx, "lock l", true, time.Time{}, hour, refuse)
	if ok || !errors.Is(err, ErrNotObtained) || !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, refused) {
		t.Errorf("ctx ends: ok %v, err %v, want ErrNotObtained, the deadline and the refusal", ok, err)
	}
	ok, err = pollLock(context.Background(), "l", true, time.Time{}, hour, func() pollAttempt { return pollAttempt{fatal: fatal, refusal: refused} })
	if ok || err != fatal {
		t.Errorf("fatal: ok %v, err %v, want the fatal error as it is", ok, err)
	}
}
