package bench

import (
	"math"
	"strings"
	"testing"
)

const commandStats = `# Commandstats
cmdstat_evalsha:calls=200,usec=3000,usec_per_call=15.00,rejected_calls=0,failed_calls=0
cmdstat_hincrby:calls=100,usec=200,usec_per_call=2.00,rejected_calls=0,failed_calls=0
cmdstat_publish:calls=100,usec=300,usec_per_call=3.00,rejected_calls=0,failed_calls=0
cmdstat_config|resetstat:calls=1,usec=9,usec_per_call=9.00,rejected_calls=0,failed_calls=0
cmdstat_info:calls=2,usec=40,usec_per_call=20.00,rejected_calls=0,failed_calls=0
`

// The meter's own commands are left out; script entries alone make the
// script time (commands scripts call are counted under their names too).
func TestParseCommandStats(t *testing.T) {
	c := parseCommandStats(commandStats)
	if _, ok := c.Commands["info"]; ok {
		t.Errorf("info counted: %+v", c.Commands)
	}
	if _, ok := c.Commands["config|resetstat"]; ok {
		t.Errorf("config|resetstat counted: %+v", c.Commands)
	}
	if got := c.Commands["evalsha"]; got != (CommandCost{Calls: 200, Usec: 3000}) {
		t.Errorf("evalsha = %+v", got)
	}
	if got := c.ScriptUsec(); got != 3000 {
		t.Errorf("ScriptUsec = %d, want 3000 (evalsha only)", got)
	}
	if got, want := c.CallsPerOp(100), "evalsha 2.00, publish 1.00, hincrby 1.00"; got != want {
		t.Errorf("CallsPerOp = %q, want %q", got, want)
	}
}

func TestMainThreadCPU(t *testing.T) {
	for _, tc := range []struct {
		info string
		want int64
	}{
		{"used_cpu_sys:9.0\r\nused_cpu_user:9.0\r\nused_cpu_sys_main_thread:1.250000\r\nused_cpu_user_main_thread:0.500001\r\n", 1750001},
		{"used_cpu_sys:0.25\r\nused_cpu_user:0.5\r\n", 750000}, // no main-thread fields: the process's
	} {
		if got := mainThreadCPU(tc.info); got != tc.want {
			t.Errorf("mainThreadCPU(%q) = %d, want %d", tc.info, got, tc.want)
		}
	}
}

// The limit is 1e6 / µs per cycle, a share the rate over it; pooling
// windows adds their costs.
func TestServerLimitMath(t *testing.T) {
	var pooled ServerCost
	pooled.add(ServerCost{CPUUsec: 2000, Commands: map[string]CommandCost{"evalsha": {Calls: 20, Usec: 500}}})
	pooled.add(ServerCost{CPUUsec: 3000, Commands: map[string]CommandCost{"evalsha": {Calls: 30, Usec: 700}}})
	if pooled.CPUUsec != 5000 || pooled.Commands["evalsha"] != (CommandCost{Calls: 50, Usec: 1200}) {
		t.Fatalf("pooled = %+v", pooled)
	}
	per := PerOp(pooled.CPUUsec, 25) // 200 µs per cycle
	if per != 200 {
		t.Fatalf("PerOp = %v, want 200", per)
	}
	limit := ServerLimit(per)
	if limit != 5000 {
		t.Errorf("ServerLimit(200 µs) = %v, want 5000/s", limit)
	}
	if got := OfLimit(4000, limit); math.Abs(got-0.8) > 1e-12 {
		t.Errorf("OfLimit(4000, 5000) = %v, want 0.8", got)
	}
	if ServerLimit(0) != 0 || OfLimit(10, 0) != 0 || PerOp(10, 0) != 0 {
		t.Error("unknown cost or no ops must give 0, not Inf")
	}
}

// pairsReport has a Go port and its Redisson peer (and one at another
// release) in every cell of one worker count, with made-up rates.
func pairsReport() *Report {
	row := func(s string, n int, rate, cpu float64) Row {
		return Row{Subject: s, Workers: n, CyclesPerSec: rate, ServerUsecPerCycle: cpu, OfServerLimit: OfLimit(rate, ServerLimit(cpu))}
	}
	return &Report{
		Threads:  true,
		Subjects: []SubjectInfo{{Name: "reentrant"}, {Name: "redisson"}, {Name: "redisson@3.43.0"}, {Name: "fair"}},
		Ceiling:  []CeilingRow{{Workers: 8, CallsPerSec: 40000, ServerUsecPerCall: 10}},
		Uncontended: []Row{
			row("reentrant", 8, 12000, 50), row("redisson", 8, 8000, 50), row("redisson@3.43.0", 8, 16000, 25), row("fair", 8, 5000, 100),
		},
		Contended: []Row{row("reentrant", 8, 3000, 100), row("redisson", 8, 2000, 150)},
	}
}

func TestPairRatios(t *testing.T) {
	got := pairsReport().PairRatios()
	want := []PairRatio{
		{Go: "reentrant", Peer: "redisson", N: 8, Ratio: 1.5},
		{Go: "reentrant", Peer: "redisson", Contended: true, N: 8, Ratio: 1.5},
		{Go: "reentrant", Peer: "redisson@3.43.0", N: 8, Ratio: 0.75},
	}
	if len(got) != len(want) {
		t.Fatalf("PairRatios = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("PairRatios[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	tab, ok := pairsReport().pairTable()
	if !ok || len(tab.rows) != 2 {
		t.Fatalf("pair table = %+v", tab)
	}
	if r := tab.rows[1]; r[0] != "reentrant ÷ redisson@3.43.0" || r[1] != "0.75×" || r[2] != "-" {
		t.Errorf("row for the other release = %q", r)
	}
	if _, ok := (&Report{Subjects: []SubjectInfo{{Name: "fair"}}}).pairTable(); ok {
		t.Error("a pair table without a pair")
	}
}

// The limit table shows each cell's share of its own limit: 12000/s at
// 50 µs is 60% of 20000/s.
func TestLimitTable(t *testing.T) {
	r := pairsReport()
	r.Uncontended[0].OfCeiling = 0.6
	tab := r.limitTable()
	if tab.rows[0][0] != "reentrant" || tab.rows[0][1] != "60% of 20,000/s (60%)" {
		t.Errorf("reentrant row = %q", tab.rows[0])
	}
	if tab.rows[3][2] != "-" { // fair has no contended cell
		t.Errorf("fair row = %q", tab.rows[3])
	}
	cost := r.serverCostTable()
	if last := cost.rows[len(cost.rows)-1]; !strings.HasPrefix(last[1], "10.0 / ") {
		t.Errorf("ceiling row = %q", last)
	}
}
