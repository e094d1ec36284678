package model

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestFencing(t *testing.T) {
	tests := []struct {
		name, timeline string
		h              *History
		want           Verdict
	}{
		{
			name: "grants and accepted writes increase",
			timeline: `
			p0 |acq ok t1| |write t1 ok| |rel ok|
			p1                                   |acq ok t2| |write t2 ok|
			    0       5  6          8  9    10 11       15 16         18`,
			h: hist(withToken(acq(0, "L", 0, 5, OK), 1), withToken(sec(0, "L", 6, 8, 0, 1, OK), 1), rel(0, "L", 9, 10, OK),
				withToken(acq(1, "L", 11, 15, OK), 2), withToken(sec(1, "L", 16, 18, 1, 2, OK), 2)),
			want: Valid,
		},
		{
			name: "a token that goes backwards across grants",
			timeline: `
			p0 |acq ok t5| |rel ok|
			p1                     |acq ok t3|
			    0       5  6     8 9        12`,
			h:    hist(withToken(acq(0, "L", 0, 5, OK), 5), rel(0, "L", 6, 8, OK), withToken(acq(1, "L", 9, 12, OK), 3)),
			want: Invalid,
		},
		{
			name: "the resource accepted a stale token",
			timeline: `
			p0 |write t2 ok|
			p1               |write t1 ok|   (p1's lease ran out; the resource should have refused)
			    0          4 5          9`,
			h:    hist(withToken(sec(0, "L", 0, 4, 0, 1, OK), 2), withToken(sec(1, "L", 5, 9, 1, 2, OK), 1)),
			want: Invalid,
		},
		{
			name: "a stale write refused is fine",
			timeline: `
			p0 |write t2 ok|
			p1               |write t1 fail|
			    0          4 5            9`,
			h:    hist(withToken(sec(0, "L", 0, 4, 0, 1, OK), 2), withToken(sec(1, "L", 5, 9, 1, 2, Fail), 1)),
			want: Valid,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckFences(tc.h, Options{})
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\n%s\n%s", r.Verdict, tc.want, tc.timeline, r)
			}
		})
	}
}

func TestFairness(t *testing.T) {
	tests := []struct {
		name, timeline string
		h              *History
		want           Verdict
		count          int
	}{
		{
			name: "FIFO",
			timeline: `
			p0 |acq ok|           |rel ok|
			p1   |-e----acq ok (queued at 3)----|  |rel ok|
			p2     |-e-------acq ok (queued at 5)-----------|
			    0 2 3  4 5      10     15         20 22   25 30`,
			h: hist(acq(0, "L", 0, 4, OK), rel(0, "L", 10, 15, OK),
				withEnq(acq(1, "L", 2, 20, OK), 3), rel(1, "L", 22, 25, OK),
				withEnq(acq(2, "L", 4, 30, OK), 5)),
			want: Valid,
		},
		{
			name: "FIFO overtake",
			timeline: `
			p0 |acq ok|           |rel ok|
			p1   |-e----acq ok (queued at 3)-----------------|
			p2           |-e--acq ok--|  |rel ok|
			    0 2 3  4  6 7        20  22    25            30`,
			h: hist(acq(0, "L", 0, 4, OK), rel(0, "L", 10, 15, OK),
				withEnq(acq(1, "L", 2, 30, OK), 3),
				withEnq(acq(2, "L", 6, 20, OK), 7), rel(2, "L", 22, 25, OK)),
			want:  Invalid,
			count: 1,
		},
		{
			name: "overtake while the first waiter was stalled (evicted)",
			timeline: `
			p0 |acq ok|           |rel ok|
			p1   |-e----acq ok (queued at 3)-----------------|
			p2           |-e--acq ok--|  |rel ok|
			fault      [ pause p1 ........ ]
			    0 2 3  4  6 7        20  22    25            30`,
			h: func() *History {
				h := hist(acq(0, "L", 0, 4, OK), rel(0, "L", 10, 15, OK),
					withEnq(acq(1, "L", 2, 30, OK), 3),
					withEnq(acq(2, "L", 6, 20, OK), 7), rel(2, "L", 22, 25, OK))
				h.Faults = []Fault{{Name: "client-pause", Target: "p1", Start: 5, End: 21}}
				return h
			}(),
			want:  Valid,
			count: 1,
		},
		{
			name: "a waiter that gave up may be passed",
			timeline: `
			p1   |-e----acq fail (gave up)-|
			p2           |-e--acq ok--|
			    0 2 3     6 7        20  25`,
			h:    hist(withEnq(acq(1, "L", 2, 25, Fail), 3), withEnq(acq(2, "L", 6, 20, OK), 7)),
			want: Valid,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckFair(tc.h, Options{})
			if r.Verdict != tc.want || r.Count != tc.count {
				t.Fatalf("verdict %s count %d, want %s %d\n%s\n%s", r.Verdict, r.Count, tc.want, tc.count, tc.timeline, r)
			}
			if rep := Check(tc.h, Options{}); rep.Verdict == Valid && tc.want == Invalid {
				t.Fatalf("Check did not run fairness:\n%s", rep)
			}
		})
	}
}

// TestFairnessShowsTheVerdictsOvertakeFirst: an Invalid verdict's first
// example is an overtake without a fault, even when an excused one (on lock
// A, checked first) was met before it.
func TestFairnessShowsTheVerdictsOvertakeFirst(t *testing.T) {
	h := hist(acq(0, "A", 0, 4, OK), rel(0, "A", 10, 15, OK),
		withEnq(acq(1, "A", 2, 30, OK), 3),
		withEnq(acq(2, "A", 6, 20, OK), 7), rel(2, "A", 22, 25, OK),
		acq(0, "B", 40, 44, OK), rel(0, "B", 50, 55, OK),
		withEnq(acq(1, "B", 42, 70, OK), 43),
		withEnq(acq(2, "B", 46, 60, OK), 47), rel(2, "B", 62, 65, OK))
	h.Faults = []Fault{{Name: "client-pause", Target: "p1", Start: 5, End: 21}}
	r := CheckFair(h, Options{})
	if r.Verdict != Invalid || r.Count != 2 || len(r.Examples) != 2 {
		t.Fatalf("verdict %s, count %d, %d examples; want invalid, 2, 2\n%s", r.Verdict, r.Count, len(r.Examples), r)
	}
	if first := r.Examples[0]; first.Lock != "B" || len(first.Faults) != 0 {
		t.Errorf("first example is on %s with %d faults (%s), want B's overtake without a fault", first.Lock, len(first.Faults), first.Cause)
	}
}

func TestMutualExclusionOnResource(t *testing.T) {
	tests := []struct {
		name, timeline string
		h              *History
		want           Verdict
	}{
		{
			name: "sections in turn",
			timeline: `
			p0 |cs 0->1|
			p1          |cs 1->2|
			    0      4 5      9`,
			h:    hist(sec(0, "L", 0, 4, 0, 1, OK), sec(1, "L", 5, 9, 1, 2, OK)),
			want: Valid,
		},
		{
			name: "overlapping sections",
			timeline: `
			p0 |---cs 0->1---|
			p1       |---cs 1->2---|
			    0    3      6      9`,
			h:    hist(sec(0, "L", 0, 6, 0, 1, OK), sec(1, "L", 3, 9, 1, 2, OK)),
			want: Invalid,
		},
		{
			name: "lost update",
			timeline: `
			p0 |cs 0->1|
			p1          |cs 0->1|   (read before p0's write landed)
			    0      4 5      9`,
			h:    hist(sec(0, "L", 0, 4, 0, 1, OK), sec(1, "L", 5, 9, 0, 1, OK)),
			want: Invalid,
		},
		{
			name: "overlap fenced off by the resource",
			timeline: `
			p0 |---cs 0->1 ok---|
			p1       |---cs 0->1 rejected---|
			    0    3         6           9`,
			h:    hist(sec(0, "L", 0, 6, 0, 1, OK), sec(1, "L", 3, 9, 0, 1, Fail)),
			want: Valid,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CheckMutex(tc.h, Options{})
			if r.Verdict != tc.want {
				t.Fatalf("verdict %s, want %s\n%s\n%s", r.Verdict, tc.want, tc.timeline, r)
			}
		})
	}
}

// The explanation of a double grant names the overlapping faults and says
// whether the first holder's lease could have run out.
func TestExplanationLeaseCause(t *testing.T) {
	// p0 |acq ok lease 100|                 ...                  |rel ok|
	// p1                       |acq ok|  (at 50: lease cannot have run out)
	// p2                                          |acq ok| (at 300, after p1... )
	bug := hist(withLease(acq(0, "L", 0, 5, OK), 100), acq(1, "L", 50, 55, OK))
	bug.Faults = []Fault{{Name: "partition", Target: "redis", Start: 10, End: 60}}
	r := CheckLinearizability(bug, Options{})
	if r.Verdict != Invalid || len(r.Examples) == 0 {
		t.Fatalf("want invalid with an example:\n%s", r)
	}
	e := r.Examples[0]
	if e.LeaseCouldExpire || !strings.Contains(e.Cause, "implementation bug") || len(e.Faults) != 1 || len(e.Ops) != 2 {
		t.Fatalf("want a bug verdict naming one fault and two ops:\n%s", e)
	}

	expired := hist(withLease(acq(0, "L", 0, 5, OK), 100), acq(1, "L", 150, 155, OK))
	expired.Faults = []Fault{{Name: "client-pause", Target: "p0", Start: 10, End: 200}}
	r = CheckLinearizability(expired, Options{})
	e = r.Examples[0]
	if r.Verdict != Invalid || !e.LeaseCouldExpire || !strings.Contains(e.Cause, "allowed by p0's lease") || e.AllowedBy == "" {
		t.Fatalf("want a verdict allowed by the lease:\n%s", r)
	}
}

// An exhausted time budget yields Unknown, promptly.
func TestLinearizabilityUnknownNeverHangs(t *testing.T) {
	h, _ := simulate(rand.New(rand.NewPCG(1, 2)), simConfig{locks: 4, procs: 6, ops: 20_000, infoRate: 0.1})
	start := time.Now()
	r := CheckLinearizability(h, Options{Timeout: time.Nanosecond})
	if r.Verdict != Unknown {
		t.Fatalf("verdict %s with a 1ns budget, want unknown", r.Verdict)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Fatalf("took %s", el)
	}
}

func TestWriteHTML(t *testing.T) {
	h := hist(acq(0, "L", 0, 5, OK), acq(1, "L", 10, 15, OK), rel(0, "L", 20, 25, OK), acq(2, "M", 0, 5, OK))
	h.Faults = []Fault{{Name: "partition", Target: "redis-1", Start: 3, End: 12}}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, h, Options{}, HTMLOptions{Locks: []string{"L"}}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{"fault: partition", "held by p0", "p1 acquire(blocking"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "p2 acquire") {
		t.Error("page draws lock M although only L was selected")
	}
}

// TestNothingGrantedIsUnknown: a history in which no acquire was granted
// exercised nothing, so it is never Valid; a violation in it still is
// Invalid, and one grant is enough to drop the remark.
func TestNothingGrantedIsUnknown(t *testing.T) {
	const ms = 100 // ns: within the helpers' 1 µs lease
	none := hist(acq(0, "l", 0, 3*ms, Info), try(1, "l", ms, 2*ms, Info))
	if rep := Check(none, Options{}); rep.Verdict != Unknown || !strings.Contains(rep.String(), "no acquire was granted") {
		t.Fatalf("nothing granted: %s", rep)
	}
	one := hist(acq(0, "l", 0, ms, OK), rel(0, "l", 2*ms, 3*ms, OK))
	if rep := Check(one, Options{}); rep.Verdict != Valid {
		t.Fatalf("one grant: %s", rep)
	}
	stray := hist(rel(0, "l", 0, ms, OK)) // a release of a lock nobody holds
	if rep := Check(stray, Options{}); rep.Verdict != Invalid {
		t.Fatalf("a violation without a grant: %s", rep)
	}
}
