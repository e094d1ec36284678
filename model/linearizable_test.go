package model

import (
	"strings"
	"testing"
	"time"
)

func TestLinearizabilityHandDrawn(t *testing.T) {
	tests := []struct {
		name string
		// timeline is the drawing; ops encode it.
		timeline string
		h        *History
		fair     bool
		want     Verdict
		why      string // substring of the first example's summary (Invalid only)
		class    Class  // the first example's class, when set
	}{
		{
			name: "hand-off",
			timeline: `
			p0 |-acq ok-|   |-rel ok-|
			p1    |------acq ok (waits)--------|  |-rel ok-|
			  0    5   10   20     30          40 45     50`,
			h:    hist(acq(0, "L", 0, 10, OK), rel(0, "L", 20, 30, OK), acq(1, "L", 5, 40, OK), rel(1, "L", 45, 50, OK)),
			want: Valid,
		},
		{
			name: "reentrant counts add up",
			timeline: `
			p0 |acq ok| |acq ok| |rel ok| |rel ok|
			p1   |-------------acq ok (waits)------------|
			    0   5  10   15  20   25  30   35        50`,
			h: hist(acq(0, "L", 0, 5, OK), acq(0, "L", 10, 15, OK), rel(0, "L", 20, 25, OK), rel(0, "L", 30, 35, OK),
				acq(1, "L", 2, 50, OK)),
			want: Valid,
		},
		{
			name: "fail acquire while held, non-owner release fails",
			timeline: `
			p0 |acq ok|                 |rel ok|
			p1         |try fail| |rel fail|
			    0    5 10     15  17     19 20   25`,
			h:    hist(acq(0, "L", 0, 5, OK), try(1, "L", 10, 15, Fail), rel(1, "L", 17, 19, Fail), rel(0, "L", 20, 25, OK)),
			want: Valid,
		},
		{
			name: "info acquire may have taken effect: explains a later fail",
			timeline: `
			p0 |--acq info--|                    (retired; lease 1000)
			p1                 |try fail|  |acq ok|
			    0          10   20     25  30    35`,
			h:    hist(acq(0, "L", 0, 10, Info), try(1, "L", 20, 25, Fail), acq(1, "L", 30, 35, OK)),
			want: Valid,
		},
		{
			name: "info acquire window outlasts the holder: may take effect after the release",
			timeline: `
			p0 |acq ok|      |rel ok|
			p1    |------acq info--------|
			p2                               |try fail|
			    0   5       10    15    20    30     35`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, OK), acq(1, "L", 3, 20, Info), try(2, "L", 30, 35, Fail)),
			want: Valid,
		},
		{
			name: "process retired on another lock: its hold here may vanish",
			timeline: `
			p0 |acq A ok| |acq B info|
			p1                          |acq A ok|
			    0      5  10        15  20      25`,
			h:    hist(acq(0, "A", 0, 5, OK), acq(0, "B", 10, 15, Info), acq(1, "A", 20, 25, OK)),
			want: Valid,
		},
		{
			name: "fair lock: fail while free but another request was queued",
			timeline: `
			p0 |acq ok| |rel ok|
			p1    |--------acq ok (queued first)---|
			p2                  |try fail|
			    0    5 10     15 16     18         30`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, OK), acq(1, "L", 3, 30, OK), try(2, "L", 16, 18, Fail)),
			fair: true,
			want: Valid,
		},
		{
			name: "two owners granted at once",
			timeline: `
			p0 |acq ok|             |rel ok|
			p1          |acq ok|
			    0    5  10    15    20    25`,
			h:    hist(acq(0, "L", 0, 5, OK), acq(1, "L", 10, 15, OK), rel(0, "L", 20, 25, OK)),
			want: Invalid,
			why:  "while live p0 held it",
		},
		{
			name: "release by a non-owner reported ok",
			timeline: `
			p0 |acq ok|           |rel ok|
			p1         |rel ok|
			    0    5 10    15   20    25`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(1, "L", 10, 15, OK), rel(0, "L", 20, 25, OK)),
			want: Invalid,
			why:  "did not hold",
		},
		{
			name: "reentrant counts do not add up: two acquires, one release, then another owner",
			timeline: `
			p0 |acq ok| |acq ok| |rel ok|
			p1                            |acq ok|
			    0    5 10    15 20     25 30    35`,
			h:    hist(acq(0, "L", 0, 5, OK), acq(0, "L", 10, 15, OK), rel(0, "L", 20, 25, OK), acq(1, "L", 30, 35, OK)),
			want: Invalid,
			why:  "while live p0 held it",
		},
		{
			name: "reentrant counts do not add up: more releases than acquires",
			timeline: `
			p0 |acq ok| |rel ok| |rel ok|
			    0    5 10    15 20     25`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, OK), rel(0, "L", 20, 25, OK)),
			want: Invalid,
			why:  "did not hold",
		},
		{
			name: "fail acquire while the lock was free for the whole op",
			timeline: `
			p0 |acq ok| |rel ok|
			p1                   |try fail|
			    0    5 10     15 20      25`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, OK), try(1, "L", 20, 25, Fail)),
			want: Invalid,
			why:  "free lock",
		},
		{
			name: "info acquire that must have taken effect, but only while another held the lock",
			timeline: `
			p0 |acq ok|              |rel ok|
			p1        |--acq info--|               (window ends before the release)
			p2                                |try fail|
			    0    5 6          12 20    25 30      35`,
			h:    hist(acq(0, "L", 0, 5, OK), acq(1, "L", 6, 12, Info), rel(0, "L", 20, 25, OK), try(2, "L", 30, 35, Fail)),
			want: Invalid,
			why:  "free lock",
		},
		{
			name: "stray unlock of a free lock answered ok: contract, nothing freed",
			timeline: `
			p0 |acq ok| |rel ok| |rel ok|
			    0    5 10    15 20    25`,
			h:     hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, OK), rel(0, "L", 20, 25, OK)),
			want:  Invalid,
			why:   "unlock of a lock it did not hold answered ok",
			class: ClassContract,
		},
		{
			name: "stray unlock that freed the holder: safety",
			timeline: `
			p0 |acq ok|                      (never released)
			p1          |rel ok|
			p2                   |acq ok|
			    0    5 10     15 20     25`,
			h:     hist(acq(0, "L", 0, 5, OK), rel(1, "L", 10, 15, OK), acq(2, "L", 20, 25, OK)),
			want:  Invalid,
			why:   "released a lock it did not hold (held by p0",
			class: ClassSafety,
		},
		{
			name: "retired hold outlived its lease bound",
			timeline: `
			p0 |--acq info (lease 100)--|
			p1                                       |try fail|
			    0                      10  ...  110  200     205`,
			h:    hist(withLease(acq(0, "L", 0, 10, Info), 100), try(1, "L", 200, 205, Fail)),
			want: Invalid,
			why:  "free lock",
		},
		{
			name: "info deadline later than return extends the window",
			timeline: `
			p0 |--acq info (lease 100, deadline 150)--|
			p1                                       |try fail|
			    0                      10  ...  150  200     205`,
			h:    hist(withDeadline(withLease(acq(0, "L", 0, 10, Info), 100), 150), try(1, "L", 200, 205, Fail)),
			want: Valid,
		},
		{
			name: "owner told it is not the owner",
			timeline: `
			p0 |acq ok| |rel fail|
			    0    5 10      15`,
			h:    hist(acq(0, "L", 0, 5, OK), rel(0, "L", 10, 15, Fail)),
			want: Invalid,
			why:  "not the owner",
		},
		{
			name: "owner's reentrant acquire fails",
			timeline: `
			p0 |acq ok| |try fail|
			    0    5 10      15`,
			h:    hist(acq(0, "L", 0, 5, OK), try(0, "L", 10, 15, Fail)),
			want: Invalid,
			why:  "re-acquire",
		},
		{
			name: "live hold never vanishes, however long",
			timeline: `
			p0 |acq ok (lease 10)|
			p1                        |acq ok|
			    0               5     5000  5005`,
			h:    hist(withLease(acq(0, "L", 0, 5, OK), 10), acq(1, "L", 5000, 5005, OK)),
			want: Invalid,
			why:  "while live p0 held it",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckLinearizability(tc.h, Options{Fair: tc.fair, Timeout: 10 * time.Second})
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\n%s\n%s", r.Verdict, tc.want, tc.timeline, r)
			}
			if tc.want == Invalid {
				if len(r.Examples) == 0 || !strings.Contains(r.Examples[0].Summary, tc.why) {
					t.Fatalf("explanation does not say %q:\n%s", tc.why, r)
				}
				if tc.class != "" && r.Examples[0].Class != tc.class {
					t.Fatalf("class %s, want %s:\n%s", r.Examples[0].Class, tc.class, r)
				}
			}
		})
	}
}
