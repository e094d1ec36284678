package main

import (
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// --max-wait has the run config's encoding (model.WaitBound): left out or
// "derived", the liveness bound is derived from the leases (the zero
// value); "off" turns it off; a duration sets it; 0 or a negative
// duration is refused, naming the words to use.
func TestMaxWaitFlag(t *testing.T) {
	for _, tc := range []struct {
		workload string
		flag     string // "": left out
		want     model.WaitBound
	}{
		{"", "", model.WaitDerived},
		{"hunt", "", model.WaitDerived}, // hunt plans also bound free-wait stretches (RunConfig.freeWait)
		{"", "derived", model.WaitDerived},
		{"", "off", model.WaitOff},
		{"hunt", "off", model.WaitOff},
		{"", "4s", model.WaitBound(4 * time.Second)},
	} {
		f := runFlags{subjects: "reentrant", workload: tc.workload, duration: time.Second}
		if tc.flag != "" {
			if err := f.maxWait.Set(tc.flag); err != nil {
				t.Fatalf("--max-wait %s: %v", tc.flag, err)
			}
		}
		p, err := f.plan()
		if err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		if got := p.configs[0].MaxWait; got != tc.want {
			t.Errorf("workload %q, --max-wait %q: config MaxWait %v, want %v", tc.workload, tc.flag, got, tc.want)
		}
	}
	for _, bad := range []string{"0", "0s", "-1s", "soon"} {
		var w model.WaitBound
		if err := w.Set(bad); err == nil {
			t.Errorf("--max-wait %s: accepted as %v", bad, w)
		}
	}
}
