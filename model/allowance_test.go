package model

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// ms is n milliseconds in history time (ns).
func msT(n float64) int64 { return int64(n * float64(time.Millisecond)) }

// allowCase is one hand-drawn history around one fault: just inside its
// allowance, or just outside.
type allowCase struct {
	name   string
	ops    []Op
	faults []Fault
	opts   Options
	beyond bool
	// cause must appear in the beyond example's summary or cause.
	cause string
	// shape, if set, is the beyond example's shape.
	shape Shape
}

const leaseMs = 1500 // the watchdog lease of every case

func aAcq(p int, call, ret float64) Op {
	return Op{Process: p, Lock: "L", Kind: Acquire, Blocking: true, Call: msT(call), Return: msT(ret), Outcome: OK}
}

func aAcqLease(p int, call, ret, lease float64) Op {
	o := aAcq(p, call, ret)
	o.Lease = msT(lease)
	return o
}

func aRel(p int, call, ret float64, out Outcome) Op {
	return Op{Process: p, Lock: "L", Kind: Release, Call: msT(call), Return: msT(ret), Outcome: out}
}

func aFault(name, target string, start, end float64, procs ...int) Fault {
	return Fault{Name: name, Target: target, Start: msT(start), End: msT(end), Procs: procs}
}

// stalled is p0 granted at 0, p1 granted at grant (it asked at 10); p0's
// release after the fault answers out; p1 releases at 6000.
func stalled(grant float64, out Outcome) []Op {
	return []Op{
		aAcq(0, 0, 5), aAcq(1, 10, grant),
		aRel(0, 5700, 5705, out), aRel(1, 6000, 6005, OK),
	}
}

// crashed is p0 granted at 0 and crashed (Abandon) at 1000, and p1's
// TryLock refused over [refused, refused+100]: the lock must be free one
// lease (1500) plus leaseBoundSlack (550) after the crash.
func crashed(refused float64) []Op { return crashedWait(refused, 100) }

// crashedWait is crashed with p1's refused TryLock waiting wait.
func crashedWait(refused, wait float64) []Op {
	try := Op{Process: 1, Lock: "L", Kind: Acquire, Wait: msT(wait), Call: msT(refused), Return: msT(refused + wait), Outcome: Fail}
	return []Op{aAcq(0, 0, 5), {Process: 0, Lock: "L", Kind: Abandon, Call: msT(1000), Return: msT(1000), Outcome: OK}, try}
}

func allowCases() []allowCase {
	// p0's watchdog renewed it every 500 ms until the stall at 2000: the
	// hold can run out 2/3 of a lease after, less the drift slack.
	stall := aFault("client-stall", "w0", 2000, 5500, 0)
	edge := 2000 + leaseMs*2.0/3 - float64(driftSlack(msT(leaseMs)))/1e6
	return []allowCase{
		{name: "stall: granted once the lease could run out", ops: stalled(edge+1, Fail), faults: []Fault{stall}},
		{name: "stall: granted before the lease could run out", ops: stalled(edge-1, Fail), faults: []Fault{stall}, beyond: true, cause: "no earlier than", shape: ShapeDoubleGrant},
		{name: "stall of another process", ops: stalled(3500, Fail), faults: []Fault{aFault("client-stall", "w2", 2000, 5500, 2)}, beyond: true},
		{name: "stall shorter than 2/3 of a lease", ops: stalled(3100, Fail), faults: []Fault{aFault("client-stall", "w0", 2000, 2900, 0)}, beyond: true, cause: "lasted"},
		{name: "stall: the holder's release after it answered ok", ops: stalled(3500, OK), faults: []Fault{stall}, beyond: true, cause: "answered ok", shape: ShapeUnlockAfterLapse},
		{name: "stall: the holder re-entered while the other held", faults: []Fault{stall}, beyond: true, cause: "did not learn", shape: ShapeDoubleGrant,
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 3500), aAcq(0, 5700, 5705), aRel(0, 5710, 5712, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "server pause past 2/3 of a lease", ops: stalled(3100, Fail), faults: []Fault{aFault("redis-pause", "srv", 2000, 3100)}},
		{name: "server pause under 2/3 of a lease", ops: stalled(3100, Fail), faults: []Fault{aFault("redis-pause", "srv", 2000, 2900)}, beyond: true},
		{name: "reconnect (drop) of a third of a lease", ops: stalled(3100, Fail), faults: []Fault{aFault("reconnect", "w0", 2000, 2500, 0)}},
		{name: "reconnect (drop) too short for a client that recovers at once", ops: stalled(3100, Fail), faults: []Fault{aFault("reconnect", "w0", 2000, 2200, 0)},
			opts: Options{Reconnect: -1}, beyond: true, cause: "lasted"},
		{name: "reset (drop) of 200 ms, and the client's reconnection", ops: stalled(3100, Fail), faults: []Fault{aFault("client-conn-kill", "c0", 2000, 2200, 0)}},
		{name: "reset (drop): granted before 2/3 of a lease", ops: stalled(2900, Fail), faults: []Fault{aFault("client-conn-kill", "c0", 2000, 2200, 0)}, beyond: true, cause: "no earlier than"},
		{name: "reset (drop): a short reconnection", ops: stalled(3100, Fail), faults: []Fault{aFault("client-conn-kill", "c0", 2000, 2200, 0)},
			opts: Options{Reconnect: 100 * time.Millisecond}, beyond: true, cause: "reconnection"},
		{name: "reset (drop): the holder re-entered after its reconnection", faults: []Fault{aFault("client-conn-kill", "c0", 2000, 2200, 0)}, beyond: true, cause: "did not learn",
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 3100), aAcq(0, 3800, 3805), aRel(0, 5710, 5712, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "reset (drop): the holder re-entered before the loss had to reach it", faults: []Fault{aFault("client-conn-kill", "c0", 2000, 2200, 0)},
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 3100), aAcq(0, 3600, 3605), aRel(0, 5710, 5712, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "restart empty: a hold granted before it is forgotten", ops: stalled(600, Fail), faults: []Fault{aFault("redis-restart-empty", "srv", 500, 510)}},
		{name: "restart empty: a hold granted after it", faults: []Fault{aFault("redis-restart-empty", "srv", 500, 510)}, beyond: true,
			ops: []Op{aAcq(0, 520, 525), aAcq(1, 530, 600), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "kill with appendfsync always", ops: stalled(600, Fail), faults: []Fault{aFault("redis-kill", "srv", 500, 700)}, opts: Options{LossyFaults: []string{}}, beyond: true},
		{name: "kill without it", ops: stalled(800, Fail), faults: []Fault{aFault("redis-kill", "srv", 500, 700)}},
		{name: "clock jump forward past 2/3 of a lease", ops: stalled(600, Fail), faults: []Fault{aFault("clock-jump", "srv +3s", 500, 2500)}},
		{name: "clock jump forward under 2/3 of a lease", ops: stalled(600, Fail), faults: []Fault{aFault("clock-jump", "srv +500ms", 500, 2500)}, beyond: true, cause: "forward"},
		{name: "clock jump backward", ops: stalled(600, Fail), faults: []Fault{aFault("clock-jump", "srv -3s", 500, 2500)}, beyond: true},
		{name: "latency", ops: stalled(3500, Fail), faults: []Fault{aFault("proxy-latency", "c0", 2000, 5500, 0)}, beyond: true, cause: "nothing"},
		{name: "explicit lease ran out", ops: []Op{aAcqLease(0, 0, 5, 500), aAcq(1, 10, 500), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "explicit lease not yet run out", ops: []Op{aAcqLease(0, 0, 5, 500), aAcq(1, 10, 400), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}, beyond: true},
		{name: "no watchdog: the lease ran out", opts: Options{NoWatchdog: true}, ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 1500), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}},
		{name: "no watchdog: the lease ran out, and the holder's release answered ok", opts: Options{NoWatchdog: true}, beyond: true, cause: "answered ok", shape: ShapeUnlockAfterLapse,
			ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 1500), aRel(1, 1600, 1605, OK), aRel(0, 5700, 5705, OK)}},
		{name: "no watchdog: the lease had not run out", opts: Options{NoWatchdog: true}, ops: []Op{aAcq(0, 0, 5), aAcq(1, 10, 1400), aRel(0, 5700, 5705, Fail), aRel(1, 6000, 6005, OK)}, beyond: true},
		{name: "a hold lost with no fault", ops: []Op{aAcq(0, 0, 5), aRel(0, 5700, 5705, Fail)}, beyond: true, cause: "held nothing"},
		{name: "a hold lost in a restart during its release", ops: []Op{aAcq(0, 0, 5), aRel(0, 500, 600, Fail)}, faults: []Fault{aFault("redis-restart-empty", "srv", 550, 560)}},
		{name: "a hold lost in a restart", ops: []Op{aAcq(0, 0, 5), aRel(0, 5700, 5705, Fail)}, faults: []Fault{aFault("redis-restart-empty", "srv", 500, 510)}},
		{name: "lease bound: refused within a lease of the crash", ops: crashed(2900)},
		{name: "lease bound: refused past it", ops: crashed(3100), beyond: true, cause: "lease bound"},
		{name: "a refusal after an ok release", beyond: true, cause: "only ended holds",
			ops: []Op{aAcq(0, 0, 5), aRel(0, 1000, 1005, OK), {Process: 1, Lock: "L", Kind: Acquire, Wait: msT(100), Call: msT(1100), Return: msT(1200), Outcome: Fail}}},
		{name: "a refusal while the release was in flight",
			ops: []Op{aAcq(0, 0, 5), aRel(0, 1000, 1005, OK), {Process: 1, Lock: "L", Kind: Acquire, Wait: msT(100), Call: msT(904), Return: msT(1004), Outcome: Fail}}},
		{name: "split brain: a grant after the thaw on the second master", faults: []Fault{aFault("sentinel-pause-master", "m", 500, 3000)},
			ops: []Op{aAcq(0, 3100, 3105), aAcq(1, 3200, 3300), aRel(0, 5700, 5705, OK), aRel(1, 6000, 6005, OK)}},
		{name: "split brain: both releases answer ok", ops: stalled(600, OK), faults: []Fault{aFault("sentinel-pause-master", "m", 500, 3000)}},
	}
}

// Every allowance has a case just inside it and one just outside.
func TestAllowances(t *testing.T) {
	for _, c := range allowCases() {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			opts.WatchdogLease = leaseMs * time.Millisecond
			h := &History{Ops: c.ops, Faults: c.faults}
			if err := h.Validate(); err != nil {
				t.Fatal(err)
			}
			r := CheckBeyond(h, opts)
			if got := r.Verdict == Invalid; got != c.beyond {
				t.Fatalf("beyond = %v, want %v:\n%s", got, c.beyond, r)
			}
			if c.beyond && !strings.Contains(r.Examples[0].Summary+r.Examples[0].Cause, c.cause) {
				t.Errorf("the example does not say %q:\n%s", c.cause, r)
			}
			if c.beyond && c.shape != "" && r.Examples[0].Shape != c.shape {
				t.Errorf("the example's shape is %s, want %s:\n%s", r.Examples[0].Shape, c.shape, r)
			}
			if c.beyond && !r.Examples[0].Beyond {
				t.Errorf("the example is not marked beyond:\n%s", r)
			}
			checkAllowedList(t, r, c.faults)
		})
	}
}

// checkAllowedList checks that r.Allowed counts the anomalies r's
// explanation says were allowed, each by a lease, a release sent twice or
// one of faults' windows.
func checkAllowedList(t *testing.T, r Result, faults []Fault) {
	t.Helper()
	var want int
	if _, err := fmt.Sscanf(r.Explanation[strings.Index(r.Explanation, "(")+1:], "%d", &want); err != nil {
		t.Fatalf("no count of allowed anomalies in %q", r.Explanation)
	}
	got := 0
	for _, a := range r.Allowed {
		var n int
		if _, err := fmt.Sscanf(a[strings.LastIndex(a, "(×")+len("(×"):], "%d", &n); err != nil {
			t.Fatalf("allowance %q has no count", a)
		}
		got += n
		named := strings.Contains(a, "lease") || strings.Contains(a, "sent twice")
		for _, f := range faults {
			named = named || strings.HasPrefix(a, f.Name+" "+f.Target)
		}
		if !named {
			t.Errorf("allowance %q names no lease and none of the faults %v", a, faults)
		}
	}
	if got != want {
		t.Errorf("allowed %v counts %d anomalies; the explanation says %d: %s", r.Allowed, got, want, r.Explanation)
	}
}

// The table in docs/checking.md lists every fault kind of FaultAllowances.
func TestAllowanceKindsDistinct(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range FaultAllowances {
		if a.Why == "" || len(a.Names) == 0 {
			t.Errorf("entry %+v lacks names or a reason", a)
		}
		for _, n := range a.Names {
			if seen[n] {
				t.Errorf("fault %s listed twice", n)
			}
			seen[n] = true
		}
	}
}

// docs/checking.md's allowance table lists every fault kind with its
// allowance, as FaultAllowances states it.
func TestAllowanceTableDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/checking.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range FaultAllowances {
		row := fmt.Sprintf("| `%s` | %s |", strings.Join(a.Names, "`, `"), a.Allow)
		if !strings.Contains(string(doc), row) {
			t.Errorf("docs/checking.md lacks the row %q", row)
		}
	}
}

// A server clock set back makes a crashed holder's key outlive its lease by
// the step: a refusal then is no refusal of a free lock (linearizability
// bounds a retired hold by its lease plus the step), but without the step
// it is.
func TestClockSetBackStretchesRetiredHolds(t *testing.T) {
	ops := crashed(3100) // refused past one lease (1500) of the crash at 1000
	opts := Options{WatchdogLease: leaseMs * time.Millisecond}
	if r := CheckLinearizability(&History{Ops: ops}, opts); r.Verdict != Invalid {
		t.Fatalf("a refusal past the retired hold's lease, no clock fault: %s", r)
	}
	back := &History{Ops: ops, Faults: []Fault{aFault("clock-jump", "srv -3s (healed at 1.00 s/s)", 1200, 8000)}}
	if r := CheckLinearizability(back, opts); r.Verdict != Valid {
		t.Fatalf("a refusal while the clock, set back 3 s, kept the crashed hold: %s", r)
	}
}

// TestAllowedListBounded: past allowedLimit allowances, the rest are
// counted in one entry, so the list still sums to every anomaly allowed.
func TestAllowedListBounded(t *testing.T) {
	a := allowances{}
	for i := range allowedLimit + 3 {
		a[fmt.Sprintf("p%d's lease of 1s (from 0.000000s)", i)] = i + 1
	}
	l := a.list()
	if len(l) != allowedLimit+1 || l[0] != "p10's lease of 1s (from 0.000000s) (×11)" || l[allowedLimit] != "3 others (×6)" {
		t.Errorf("list: %q", l)
	}
}

// Past Options.MaxExamples the fault-allowance checker still keeps the
// first example of each signature it has not shown, so that a run's
// signatures are all of its violations': here a hold lost first, then
// three double grants, each with a foreign release, with one example
// allowed.
func TestBeyondKeepsEverySignature(t *testing.T) {
	ops := []Op{aAcq(0, 0, 5), aRel(0, 5700, 5705, Fail)}
	for i := range 3 {
		at := 10000 + 1000*float64(i)
		ops = append(ops, aAcq(1, at, at+5), aAcq(2, at+10, at+20), aRel(1, at+100, at+105, OK), aRel(2, at+200, at+205, OK))
	}
	r := CheckBeyond(&History{Ops: ops}, Options{WatchdogLease: leaseMs * time.Millisecond, MaxExamples: 1})
	var shapes []Shape
	for _, ex := range r.Examples {
		shapes = append(shapes, ex.Shape)
	}
	if want := []Shape{ShapeHoldLost, ShapeDoubleGrant, ShapeForeignRelease}; r.Count != 7 || !slices.Equal(shapes, want) {
		t.Fatalf("count %d, shapes %v: want 7 anomalies and one example of each of %v:\n%s", r.Count, shapes, want, r)
	}
}
