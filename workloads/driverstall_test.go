package workloads

import (
	"slices"
	"testing"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// TestDriverStallsRecorded: a driver's stall becomes a hiccup window of the
// processes its owners name, cut to the run's start; one told before the
// history started, or ended before time 0, is dropped.
func TestDriverStallsRecorded(t *testing.T) {
	var s driverStalls
	base := time.Now()
	s.record([]string{"p1"}, base.Add(time.Second), base.Add(2*time.Second)) // before start: dropped
	rec, err := model.NewRecorder(nil, model.Header{})
	if err != nil {
		t.Fatal(err)
	}
	s.start(rec, base)
	s.record([]string{"p1"}, base.Add(-2*time.Second), base.Add(-time.Second)) // before time 0: dropped
	s.record([]string{"p2", "p5"}, base.Add(-50*time.Millisecond), base.Add(200*time.Millisecond))
	fs := rec.History().Faults
	if len(fs) != 1 {
		t.Fatalf("faults %+v, want one", fs)
	}
	f := fs[0]
	if f.Name != HiccupFault || !slices.Equal(f.Procs, []int{2, 5}) || f.Start != 0 || f.End != int64(200*time.Millisecond) || f.Target != "driver p2,p5" {
		t.Errorf("fault %+v: want a hiccup of processes 2 and 5 over [0, 200ms]", f)
	}
}
