package model

import (
	"strings"
	"testing"
)

// The cause of a double grant: which grant came first (as the op intervals
// and tokens allow) and whether the earlier hold could have ended, by its
// lease or with the server's data, before the later grant. Times are ns;
// stalled-holder cases use a 1500 ns watchdog lease (the scenario's 1.5 s,
// scaled).
func TestExplanationGrantOrderAndLoss(t *testing.T) {
	stall := Fault{Name: "client-stall", Target: "w1", Start: 1004, End: 4500}
	watchdog := func(o Op) Op { o.Lease = 0; return o }
	faulted := func(h *History, fs ...Fault) *History { h.Faults = fs; return h }
	// The client-stall run: p2's blocking acquire is in flight while p1 is
	// granted, stalls past its lease, and p2 is granted when it runs out.
	stalled := func(t1, t2 int64) *History {
		return faulted(hist(
			withToken(watchdog(acq(2, "st", 229, 2528, OK)), t2),
			withToken(watchdog(acq(1, "st", 1005, 1027, OK)), t1),
			rel(2, "st", 2550, 2560, OK),
			rel(1, "st", 4510, 4520, Fail),
		), stall)
	}
	restart := func(start int64) Fault {
		return Fault{Name: "redis-restart-empty", Target: "127.0.0.1:6379", Start: start, End: start + 10}
	}
	held := func() *History {
		return hist(withLease(acq(0, "L", 0, 5, OK), 1000), withLease(acq(1, "L", 200, 205, OK), 1000))
	}
	tests := []struct {
		name, timeline string
		h              *History
		opts           Options
		mutex          bool     // explain with CheckMutex, not CheckLinearizability
		want           []string // in the cause (or summary)
		not            []string
		lease, lost    bool
	}{
		{
			name: "stalled holder granted first, tokens order the grants",
			timeline: `
			p2 |------------------acq ok t56--------------------| |rel ok|
			p1              |acq ok t55|                                  |rel fail|
			stall w1       [=================================================...]
			    229        1005     1027                      2528 2550   4510
			   (p1 granted ~1027, stalled past 1500; p2 granted when it ran out)`,
			h:     stalled(55, 56),
			want:  []string{"tokens 55 < 56", "p1's watchdog-renewed hold", "could have run out by 0.000003s", "allowed by client-stall w1", "p2 was granted the lock while live p1 held it"},
			not:   []string{"implementation bug"},
			lease: true,
		},
		{
			name: "stalled holder granted first, no tokens: the explained order",
			timeline: `
			p2 |------------------acq ok------------------------| |rel ok|
			p1              |acq ok|                                      |rel fail|
			stall w1       [=================================================...]
			    229        1005 1027                          2528 2550   4510`,
			h:     stalled(0, 0),
			want:  []string{"p1's grant may have come first", "p1's watchdog-renewed hold", "p2 was granted the lock while live p1 held it"},
			not:   []string{"implementation bug"},
			lease: true,
		},
		{
			name: "a short drop stretched by the client's reconnection: allowed, as the fault-allowance checker says",
			timeline: `
			p2 |------------------acq ok t56--------------------| |rel ok|
			p1              |acq ok t55|                                  |rel fail|
			reconnect w1     [====]  (+ 1000 reconnecting)
			    229        1005     1027 1300                 2528 2550   4510`,
			h:     faulted(stalled(55, 56), Fault{Name: "reconnect", Target: "w1", Start: 1004, End: 1300, Procs: []int{1}}),
			opts:  Options{Reconnect: 1000},
			want:  []string{"stopped being renewed under reconnect w1", "could have run out by 0.000003s", "allowed by reconnect w1"},
			not:   []string{"implementation bug"},
			lease: true,
		},
		{
			name: "the same drop with a client that reconnects at once: its hold could not have run out",
			timeline: `
			p2 |------------------acq ok t56--------------------| |rel ok|
			p1              |acq ok t55|                                  |rel fail|
			reconnect w1     [====]
			    229        1005     1027 1300                 2528 2550   4510`,
			h:    faulted(stalled(55, 56), Fault{Name: "reconnect", Target: "w1", Start: 1004, End: 1300, Procs: []int{1}}),
			opts: Options{Reconnect: -1},
			want: []string{"could not have run out by 0.000003s: an implementation bug"},
		},
		{
			name: "tokens say the long acquire came first: its hold could not have run out",
			timeline: `
			p2 |------------------acq ok t55--------------------| |rel ok|
			p1              |acq ok t56|                                  |rel fail|
			stall w1       [=================================================...]
			    229        1005     1027                      2528 2550   4510`,
			h:    stalled(56, 55),
			want: []string{"tokens 55 < 56", "p2's watchdog-renewed hold", "could not have run out by 0.000001s: an implementation bug", "p1 was granted the lock while live p2 held it"},
		},
		{
			name: "overlapping grants, no fault, neither order explained",
			timeline: `
			p0 |-------acq ok lease 1000--------|
			p1          |acq ok lease 1000|
			    0       50               60    100`,
			h:    hist(acq(0, "L", 0, 100, OK), acq(1, "L", 50, 60, OK)),
			want: []string{"in either order", "p0's explicit lease", "p1's explicit lease", "an implementation bug"},
		},
		{
			name: "both orders possible and both explained: ambiguous",
			timeline: `
			p0 |--------acq ok lease 100--------|
			p1   |------acq ok lease 100--------|
			    0 10                          1000`,
			h:     hist(withLease(acq(0, "L", 0, 1000, OK), 100), withLease(acq(1, "L", 10, 1000, OK), 100)),
			want:  []string{"is ambiguous", "could have run out"},
			not:   []string{"implementation bug"},
			lease: true,
		},
		{
			name: "overlapping critical sections: the later section's holder was granted first",
			timeline: `
			p1 |------------acq ok lease 500------------||cs 1001-1100|
			p0    |acq ok lease 500|                          |cs 1050-1200|   (p0 stalled before its section)
			    0 10              20                   1000 1001  1050    1200`,
			h: hist(withLease(acq(1, "L", 0, 1000, OK), 500), sec(1, "L", 1001, 1100, 0, 1, OK),
				withLease(acq(0, "L", 10, 20, OK), 500), sec(0, "L", 1050, 1200, 1, 2, OK)),
			mutex: true,
			want:  []string{"p0's grant may have come first", "p0's explicit lease of 500ns", "could have run out by 0.000001s with no fault recorded"},
			not:   []string{"implementation bug"},
			lease: true,
		},
		{
			name: "server restarted empty between the grants",
			timeline: `
			p0 |acq ok lease 1000|
			restart-empty            [=]
			p1                               |acq ok|
			    0                5   100 110  200   205`,
			h:    faulted(held(), restart(100)),
			want: []string{"p0's hold may have been lost with the server's state during redis-restart-empty", "allowed by redis-restart-empty"},
			not:  []string{"implementation bug"},
			lost: true,
		},
		{
			name: "kill-restart, tokens reset by the restart are not trusted",
			timeline: `
			p0 |acq ok t7|
			redis-kill          [===]
			p1                         |acq ok t1|
			    0       5      100  110 200     205`,
			h: faulted(hist(withToken(withLease(acq(0, "L", 0, 5, OK), 1000), 7), withToken(withLease(acq(1, "L", 200, 205, OK), 1000), 1)),
				Fault{Name: "redis-kill", Target: "127.0.0.1:6379", Start: 100, End: 110}),
			want: []string{"p0's hold may have been lost", "during redis-kill"},
			not:  []string{"tokens", "implementation bug"},
			lost: true,
		},
		{
			name: "restart before the first grant loses nothing it held",
			timeline: `
			restart-empty [=]
			p0                |acq ok lease 1000|
			p1                                      |acq ok|
			               0 10 20              25  200   205`,
			h:    faulted(hist(withLease(acq(0, "L", 20, 25, OK), 1000), withLease(acq(1, "L", 200, 205, OK), 1000)), restart(0)),
			want: []string{"could not have run out by 0.000000s: an implementation bug"},
			not:  []string{"lost"},
		},
		{
			name: "a pause loses no data",
			timeline: `
			p0 |acq ok lease 1000|
			redis-pause              [=]
			p1                               |acq ok|
			    0                5   100 110  200   205`,
			h:    faulted(held(), Fault{Name: "redis-pause", Target: "127.0.0.1:6379", Start: 100, End: 110}),
			want: []string{"an implementation bug"},
			not:  []string{"lost"},
		},
		{
			name: "no lossy faults configured (the server persists)",
			timeline: `
			p0 |acq ok lease 1000|
			restart-empty            [=]
			p1                               |acq ok|
			    0                5   100 110  200   205`,
			h:    faulted(held(), restart(100)),
			opts: Options{LossyFaults: []string{}},
			want: []string{"an implementation bug"},
			not:  []string{"lost"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.WatchdogLease = 1500
			var r Result
			if tc.mutex {
				r = CheckMutex(tc.h, opts)
			} else {
				r = CheckLinearizability(tc.h, opts)
			}
			if r.Verdict != Invalid || len(r.Examples) == 0 {
				t.Fatalf("want invalid with an example\n%s\n%s", tc.timeline, r)
			}
			e := r.Examples[0]
			text := e.Summary + " | " + e.Cause
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("explanation lacks %q", w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(text, w) {
					t.Errorf("explanation says %q", w)
				}
			}
			if e.LeaseCouldExpire != tc.lease || e.HoldCouldBeLost != tc.lost {
				t.Errorf("LeaseCouldExpire %v HoldCouldBeLost %v, want %v %v", e.LeaseCouldExpire, e.HoldCouldBeLost, tc.lease, tc.lost)
			}
			if t.Failed() {
				t.Logf("%s\n%s", tc.timeline, e)
			}
		})
	}
}

// The default lossy set names the faults package's server-losing faults.
func TestDefaultLossyFaults(t *testing.T) {
	var o Options
	for _, n := range []string{"redis-kill", "redis-restart-empty", "sentinel-kill-master", "sentinel-failover", "cluster-kill-master", "cluster-failover"} {
		if !o.lossy(n) {
			t.Errorf("%s is not lossy by default", n)
		}
	}
	for _, n := range []string{"redis-pause", "client-stall", "proxy-blackhole", "client-crash"} {
		if o.lossy(n) {
			t.Errorf("%s is lossy by default", n)
		}
	}
}
