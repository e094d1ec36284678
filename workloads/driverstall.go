package workloads

import (
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lockcheck/lockcheck/model"
)

// driverStalls records the stalls that external drivers report of their
// own processes (driver.Options.OnStall: a starved JVM, a GC pause) as
// hiccup fault windows of the owners each process hosts, as the harness's
// own stalls are (hiccup.go): a reply a stall held up says nothing about
// the lock. Reports come from the drivers' reader goroutines at any time;
// those before the history starts (a driver's start) are dropped.
type driverStalls struct {
	mu   sync.Mutex
	rec  *model.Recorder // nil until the history starts
	base time.Time       // the run's time 0
}

// start begins recording into rec, whose time 0 is base (nil s: a run
// with no drivers to hear).
func (s *driverStalls) start(rec *model.Recorder, base time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rec, s.base = rec, base
}

// record writes one stall of the process hosting owners ("p<id>", as
// workers name them) as a hiccup window of those processes, cut to the
// run's start.
func (s *driverStalls) record(owners []string, start, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil || !end.After(s.base) {
		return
	}
	var procs []int
	for _, o := range owners {
		if id, err := strconv.Atoi(strings.TrimPrefix(o, "p")); err == nil {
			procs = append(procs, id)
		}
	}
	if start.Before(s.base) {
		start = s.base
	}
	_ = s.rec.Fault(model.Fault{Name: HiccupFault, Target: "driver " + strings.Join(owners, ","),
		Start: int64(start.Sub(s.base)), End: int64(end.Sub(s.base)), Procs: procs})
}
