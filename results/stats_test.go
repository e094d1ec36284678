package results

import (
	"math"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

func TestComputeStats(t *testing.T) {
	ms := func(n int64) int64 { return n * int64(time.Millisecond) }
	var ops []model.Op
	// Process 1: 100 granted acquires taking 1..100 ms, each released in 1 ms.
	at := int64(0)
	for i := int64(1); i <= 100; i++ {
		ops = append(ops,
			model.Op{Process: 1, Lock: "L", Kind: model.Acquire, Call: at, Return: at + ms(i), Blocking: true, Outcome: model.OK},
			model.Op{Process: 1, Lock: "L", Kind: model.Release, Call: at + ms(i), Return: at + ms(i+1), Outcome: model.OK})
		at += ms(i + 1)
	}
	end := at
	// Process 2: two TryLocks that gave up, then an info that retired it.
	ops = append(ops,
		model.Op{Process: 2, Lock: "L", Kind: model.Acquire, Call: 0, Return: ms(5), Wait: ms(5), Outcome: model.Fail},
		model.Op{Process: 2, Lock: "L", Kind: model.Acquire, Call: ms(10), Return: ms(17), Wait: ms(7), Outcome: model.Fail},
		model.Op{Process: 2, Lock: "L", Kind: model.Acquire, Call: ms(20), Return: math.MaxInt64, Blocking: true, Outcome: model.Info},
		// Process 3: blocking, never granted, then abandoned.
		model.Op{Process: 3, Lock: "L", Kind: model.Acquire, Call: 0, Return: ms(50), Blocking: true, Outcome: model.Fail},
		model.Op{Process: 3, Lock: "L", Kind: model.Abandon, Call: ms(60), Return: ms(60)},
	)
	h := &model.History{Ops: ops, Faults: []model.Fault{{Name: "pause", Start: 1, End: 2}}}
	st := ComputeStats(h)

	if got, want := st.Ops, (Counts{OK: 200, Fail: 3, Info: 1}); got != want {
		t.Errorf("Ops = %+v, want %+v", got, want)
	}
	if got, want := st.ByKind[model.Acquire], (Counts{OK: 100, Fail: 3, Info: 1}); got != want {
		t.Errorf("acquires = %+v, want %+v", got, want)
	}
	if st.Abandons != 1 || st.Grants != 100 || st.Faults != 1 {
		t.Errorf("abandons %d grants %d faults %d, want 1 100 1", st.Abandons, st.Grants, st.Faults)
	}
	// The info op's unknown return does not stretch the span.
	if st.Span != time.Duration(end) {
		t.Errorf("Span = %v, want %v", st.Span, time.Duration(end))
	}
	if want := 100 / time.Duration(end).Seconds(); math.Abs(st.GrantsPerSec-want) > 1e-9 {
		t.Errorf("GrantsPerSec = %v, want %v", st.GrantsPerSec, want)
	}
	near := func(name string, got, want time.Duration) {
		t.Helper()
		if d := math.Abs(float64(got - want)); d > 0.002*float64(want) {
			t.Errorf("%s = %v, want %v (±0.2%%)", name, got, want)
		}
	}
	near("acquire p50", st.Acquire.P50, 50*time.Millisecond)
	near("acquire p99", st.Acquire.P99, 99*time.Millisecond)
	if st.Acquire.Max != 100*time.Millisecond || st.Acquire.Count != 100 {
		t.Errorf("acquire max %v count %d, want 100ms 100", st.Acquire.Max, st.Acquire.Count)
	}
	near("acquire mean", st.Acquire.Mean, 50500*time.Microsecond)
	if st.AcquireFail.Count != 3 || st.AcquireFail.Max != 50*time.Millisecond {
		t.Errorf("AcquireFail = %+v", st.AcquireFail)
	}
	near("release p50", st.Release.P50, time.Millisecond)

	if len(st.Processes) != 3 {
		t.Fatalf("Processes = %+v", st.Processes)
	}
	p2, p3 := st.Processes[1], st.Processes[2]
	if p2.Process != 2 || p2.Acquires != (Counts{Fail: 2, Info: 1}) || p2.Wait.Max != 7*time.Millisecond || !p2.Starved {
		t.Errorf("process 2 = %+v, want starved (a blocking acquire, none granted)", p2)
	}
	if p3.Process != 3 || !p3.Starved {
		t.Errorf("process 3 = %+v, want starved", p3)
	}
	if slow, ok := st.SlowestProcess(); !ok || slow.Process != 1 {
		t.Errorf("SlowestProcess = %+v, %v; want process 1", slow, ok)
	}
	// model.Waits agrees on who starved.
	for i, w := range model.Waits(h) {
		if w.Starved != st.Processes[i].Starved || w.OK != st.Processes[i].Acquires.OK {
			t.Errorf("process %d: model.Waits %+v, stats %+v", w.Process, w, st.Processes[i])
		}
	}
}

func TestComputeStatsEmpty(t *testing.T) {
	for _, h := range []*model.History{nil, {}} {
		st := ComputeStats(h)
		if st.Ops.Total() != 0 || st.Span != 0 || st.GrantsPerSec != 0 || st.ByKind == nil {
			t.Errorf("ComputeStats(%v) = %+v", h, st)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                         "-",
		850:                       "850ns",
		12345:                     "12.3µs",
		4561 * time.Microsecond:   "4.56ms",
		123456 * time.Microsecond: "123ms",
		1234 * time.Millisecond:   "1.23s",
		90 * time.Second:          "90s",
		1200 * time.Millisecond:   "1.2s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", d, got, want)
		}
	}
}
