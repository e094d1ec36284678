package model

import (
	"slices"
	"testing"
	"time"
)

// A double grant says how the first hold ended: cut short (the second
// granted before the first's lease could run out: its key deleted or its
// expiry shortened) or lapsed (granted after the first's lease could have
// run out unrenewed: a watchdog that stopped). The mechanism lands in the
// signature; the run stays invalid.
func TestDoubleGrantMechanism(t *testing.T) {
	opts := Options{WatchdogLease: 1000}
	for _, tt := range []struct {
		name string
		h    *History
		want string // the mechanism of every double grant found
	}{
		{"the second granted inside the first's explicit lease: cut short",
			hist(withLease(acq(0, "L", 0, 10, OK), 1000), acq(1, "L", 20, 500, OK), rel(1, "L", 600, 610, OK), rel(0, "L", 700, 710, OK)),
			MechanismCutShort},
		{"inside a watchdog hold's first lease: cut short",
			hist(withLease(acq(0, "L", 0, 10, OK), 0), acq(1, "L", 20, 400, OK), rel(1, "L", 600, 610, OK), rel(0, "L", 2500, 2510, OK)),
			MechanismCutShort},
		{"asked for after a watchdog hold's lease, unrenewed: lapsed",
			hist(withLease(acq(0, "L", 0, 10, OK), 0), try(1, "L", 1500, 1510, OK), rel(1, "L", 2100, 2110, OK), rel(0, "L", 2500, 2510, OK)),
			MechanismLapsed},
		{"a wait that began inside the lease and was granted after it: none (when in it the grant took effect is unknown)",
			hist(withLease(acq(0, "L", 0, 10, OK), 0), acq(1, "L", 20, 2000, OK), rel(1, "L", 2100, 2110, OK), rel(0, "L", 2500, 2510, OK)),
			""},
		{"the second's grant straddles the lease's end: none",
			hist(withLease(acq(0, "L", 0, 10, OK), 0), acq(1, "L", 900, 1005, OK), rel(1, "L", 1100, 1110, OK), rel(0, "L", 2500, 2510, OK)),
			""},
	} {
		rep := Check(tt.h, opts)
		var got []string
		for _, r := range rep.Results {
			for _, ex := range r.Examples {
				if ex.Shape == ShapeDoubleGrant {
					got = append(got, ex.Mechanism)
				}
			}
		}
		if len(got) == 0 {
			t.Fatalf("%s: no double grant found: %s", tt.name, rep)
		}
		if slices.ContainsFunc(got, func(m string) bool { return m != tt.want }) {
			t.Errorf("%s: mechanisms %q, want %q in each", tt.name, got, tt.want)
		}
		if rep.Verdict != Invalid {
			t.Errorf("%s: verdict %s, want invalid", tt.name, rep.Verdict)
		}
	}
}

// doubleGrantMechanism needs two grants of different processes, the first
// surely before the second; a re-entry of the first holder is no second
// grant.
func TestGrantPair(t *testing.T) {
	opts := Options{WatchdogLease: time.Duration(1000)}
	reentry := []Op{withLease(acq(0, "L", 0, 10, OK), 0), withLease(acq(0, "L", 15, 20, OK), 0), acq(1, "L", 30, 40, OK)}
	if got := doubleGrantMechanism(reentry, opts); got != MechanismCutShort {
		t.Errorf("a re-entry before the other's grant: %q, want %q", got, MechanismCutShort)
	}
	overlapping := []Op{acq(0, "L", 0, 50, OK), acq(1, "L", 30, 40, OK)}
	if got := doubleGrantMechanism(overlapping, opts); got != "" {
		t.Errorf("grants whose order is unknown: %q, want none", got)
	}
	one := []Op{acq(0, "L", 0, 10, OK), rel(1, "L", 30, 40, OK)}
	if got := doubleGrantMechanism(one, opts); got != "" {
		t.Errorf("one grant: %q, want none", got)
	}
}
