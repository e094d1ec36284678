package model

import (
	"context"
	"strings"
	"testing"
	"time"
)

// hardHistory is one segment that porcupine decides only after visiting
// about 2^n configurations (n = 22: about 30 s here): n concurrent failed
// releases (legal in any order) and a TryLock that failed on the free lock
// (legal in none), all overlapping. No count contradicts another (see
// countsContradict): only the search finds it illegal.
func hardHistory(n int) *History {
	h := &History{}
	for p := range n {
		h.Ops = append(h.Ops, rel(p, "L", int64(p), 1000, Fail))
	}
	h.Ops = append(h.Ops, try(n, "L", 500, 2000, Fail))
	return h
}

// A cancelled check stops porcupine mid-segment: Unknown within a second,
// saying it was interrupted.
func TestCheckContextInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	rep := CheckContext(ctx, hardHistory(22), Options{Timeout: time.Minute})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the check took %v after it was cancelled at 100ms", took)
	}
	if rep.Verdict != Unknown || rep.Stopped != "interrupted" {
		t.Fatalf("verdict %s, stopped %q, want unknown, interrupted:\n%v", rep.Verdict, rep.Stopped, rep)
	}
	if !strings.Contains(rep.String(), "interrupted") {
		t.Errorf("the report does not say the check was interrupted:\n%v", rep)
	}
}

// Options.Timeout bounds the whole check: porcupine, explanations and the
// checkers after it.
func TestCheckTimeoutCoversEveryChecker(t *testing.T) {
	h := hardHistory(22)
	h.Ops = append(h.Ops, sec(0, "L", 3000, 3100, 0, 1, OK))
	start := time.Now()
	rep := Check(h, Options{Timeout: 200 * time.Millisecond})
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("a check bounded by 200ms took %v", took)
	}
	if rep.Verdict != Unknown || !strings.HasPrefix(rep.Stopped, "timed out") {
		t.Fatalf("verdict %s, stopped %q, want unknown, timed out:\n%v", rep.Verdict, rep.Stopped, rep)
	}
	for _, r := range rep.Results {
		if r.Verdict != Unknown {
			t.Errorf("%s ran after the timeout: %s %s", r.Checker, r.Verdict, r.Explanation)
		}
	}
}

// A check cancelled before it starts decides nothing and runs nothing.
func TestCheckContextCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := CheckContext(ctx, brokenHistory(6000), Options{})
	if rep.Verdict != Unknown || rep.Stopped != "interrupted" || len(rep.Results) == 0 {
		t.Fatalf("verdict %s, stopped %q:\n%v", rep.Verdict, rep.Stopped, rep)
	}
}
