package model

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// TTLWakeupSlack is what a waiter of a lock with TTL wake-ups
// (Options.TTLWakeups) may take beyond the TTL it waited out, when
// Options.FreeWait does not say: a round trip and a retry on a busy
// machine.
const TTLWakeupSlack = 500 * time.Millisecond

// checkTTLStretches flags acquires (granted or given up) that waited
// through one continuous stretch of free lock longer than their lock's
// longest lease plus the slack: a waiter that missed its wake-up may wait
// out the TTL it last saw, and no longer, before it tries again. It returns
// the bound used per lock.
func checkTTLStretches(h *History, opts Options) (bounds map[string]time.Duration, count int, bad []Example) {
	slack := opts.FreeWait
	if slack <= 0 {
		slack = TTLWakeupSlack
	}
	bounds = map[string]time.Duration{}
	bound := func(l string, longest int64) int64 {
		bounds[l] = time.Duration(longest) + slack
		return int64(bounds[l])
	}
	count, bad = checkStretches(h, opts, bound, lostWakeUp+", not recovered within the TTL (one lease and the slack)")
	return bounds, count, bad
}

// describeTTLBounds renders the per-lock stretch bounds of TTL wake-ups.
func describeTTLBounds(bounds map[string]time.Duration) string {
	var parts []string
	for l, d := range bounds {
		parts = append(parts, fmt.Sprintf("%s (lock %s)", d, l))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		parts = []string{"none (no acquires)"}
	}
	return "waiters wake at the TTL they saw (TTL wake-ups): one stretch of waiting on a free lock outside faults of at most " + strings.Join(parts, ", ")
}
