package main

import (
	"testing"
	"time"
)

// --max-wait: left out, the liveness bound is derived from the leases (0 in
// the run config) or the hunt's 1 s; 0 turns it off (< 0 in the config);
// a duration sets it.
func TestMaxWaitFlag(t *testing.T) {
	for _, tc := range []struct {
		workload string
		flag     time.Duration
		want     time.Duration
	}{
		{"", -1, 0},
		{"hunt", -1, 0}, // derived; hunt plans also bound free-wait stretches (RunConfig.freeWait)
		{"", 0, -1},
		{"hunt", 0, -1},
		{"", 4 * time.Second, 4 * time.Second},
	} {
		f := runFlags{subjects: "reentrant", workload: tc.workload, maxWait: tc.flag, duration: time.Second}
		p, err := f.plan()
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if got := p.configs[0].MaxWait; got != tc.want {
			t.Errorf("workload %q, --max-wait %v: config MaxWait %v, want %v", tc.workload, tc.flag, got, tc.want)
		}
	}
}
